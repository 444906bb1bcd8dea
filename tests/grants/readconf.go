// A Go program that reads its configuration the way Go programs do
// (os.ReadFile, os.Stat, os.ReadDir, filepath.EvalSymlinks), for
// tests/grants: judged by a native run over the same files.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	conf, dir, link := os.Args[1], os.Args[2], os.Args[3]
	text, err := os.ReadFile(conf)
	if err != nil {
		fmt.Println("read:", err)
		os.Exit(1)
	}
	var pairs []string
	for _, l := range strings.Split(string(text), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		kv := strings.SplitN(l, "=", 2)
		v := ""
		if len(kv) == 2 {
			v = strings.TrimSpace(kv[1])
		}
		pairs = append(pairs, strings.TrimSpace(kv[0])+" = "+v)
	}
	sort.Strings(pairs)
	for _, p := range pairs {
		fmt.Println(p)
	}
	st, err := os.Stat(conf)
	fmt.Println("len", st.Size(), "dir", st.IsDir(), err)
	entries, err := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	fmt.Println(names, err)
	wd, err := os.Getwd()
	fmt.Println("cwd", wd, err)
	real, err := filepath.EvalSymlinks(link)
	fmt.Println("evalsymlinks", real, err)
	for _, p := range []string{"/data/abs", "/data/rel_out", "/proc/self/root/etc/hostname"} {
		_, err := os.ReadFile(p)
		fmt.Println(p, err)
	}
	fmt.Println("write:", os.WriteFile(conf+".new", []byte("x"), 0o644))
}
