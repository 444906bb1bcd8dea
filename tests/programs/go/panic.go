// An unrecovered panic: the runtime prints the panic and every
// goroutine's stack (frames and offsets: the same binary gives the same
// text) and exits with status 2.  Two recovered panics first: a nil map,
// and a nil pointer, which is a SIGSEGV the runtime's handler turns into
// a panic on the goroutine (delivered on the alternate signal stack).
package main

import (
	"errors"
	"fmt"
	"os"
)

func recovered() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	var m map[string]int
	m["x"] = 1 // assignment to entry in nil map
	return nil
}

type point struct{ x, y int }

func nilPointer(p *point) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return fmt.Errorf("read %d", p.y)
}

var depth = 3

// No arguments: the traceback would print their values, addresses among them.
func deeper() {
	if depth == 0 {
		panic(errors.New("boom"))
	}
	depth--
	deeper()
}

func main() {
	fmt.Println(recovered())
	fmt.Println(nilPointer(nil))
	fmt.Fprintln(os.Stderr, "about to panic")
	deeper()
}
