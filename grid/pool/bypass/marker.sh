#!/bin/sh
# A job that tries to run on the worker as a shell script: if it ever runs,
# it leaves a marker the test looks for.
touch "/home/gridder/markers/${1:-script}"
