// Timers: time.Sleep, time.After, a Ticker and a select with a timeout,
// which the runtime serves with its timer heap, futex or epoll waits and
// the vDSO clock.  Only the order of events and lower bounds on elapsed
// time are printed.
package main

import (
	"fmt"
	"time"
)

func main() {
	start := time.Now()
	time.Sleep(20 * time.Millisecond)
	fmt.Println("slept at least 20ms:", time.Since(start) >= 20*time.Millisecond)

	ticker := time.NewTicker(5 * time.Millisecond)
	ticks := 0
	for range ticker.C {
		ticks++
		if ticks == 5 {
			break
		}
	}
	ticker.Stop()
	fmt.Println("ticks:", ticks, "at least 45ms in all:", time.Since(start) >= 45*time.Millisecond)

	done := make(chan string)
	go func() {
		time.Sleep(10 * time.Millisecond)
		done <- "worker"
	}()
	select {
	case who := <-done:
		fmt.Println("first:", who)
	case <-time.After(5 * time.Second):
		fmt.Println("first: timeout")
	}
	select {
	case who := <-done:
		fmt.Println("second:", who)
	case <-time.After(30 * time.Millisecond):
		fmt.Println("second: timeout")
	}
	t := time.AfterFunc(time.Hour, func() { fmt.Println("never") })
	fmt.Println("stopped before firing:", t.Stop())
}
