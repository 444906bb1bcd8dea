#!/usr/bin/env python3
"""Packs a directory into a gzip'd newc cpio archive (an initramfs), so the
VM check needs no cpio tool.  usage: mkcpio.py DIR OUT.gz"""
import os, sys, gzip, stat
root, out = sys.argv[1], sys.argv[2]
buf = bytearray(); ino = 1
def add(name, mode, data=b''):
    global ino
    nb = name.encode() + b'\0'
    hdr = '070701' + ''.join('%08x' % v for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0))
    ino += 1
    buf.extend(hdr.encode()); buf.extend(nb)
    while len(buf) % 4: buf.append(0)
    buf.extend(data)
    while len(buf) % 4: buf.append(0)
for d, dirs, files in os.walk(root):
    rel = os.path.relpath(d, root)
    if rel != '.': add(rel, stat.S_IFDIR | 0o755)
    for f in files:
        p = os.path.join(d, f); r = os.path.normpath(os.path.join(rel, f))
        add(r, stat.S_IFREG | (os.stat(p).st_mode & 0o777), open(p, 'rb').read())
add('TRAILER!!!', 0)
open(out, 'wb').write(gzip.compress(bytes(buf), 1))
