// The smallest Go program: the runtime's start-up (TLS, vDSO, signal
// handlers on the alternate stack, the first threads) and one write.
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
