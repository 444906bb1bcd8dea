// Goroutines, channels, a map and the garbage collector: many OS threads,
// futexes, signals for preemption, and a heap that is collected while it
// grows.  The output is deterministic: results are gathered in order.
package main

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
)

type node struct {
	next *node
	data [64]byte
}

func worker(id int, jobs <-chan int, results chan<- [2]int, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := range jobs {
		// garbage on every job, so the collector runs with the workers
		var head *node
		for i := 0; i < 200; i++ {
			head = &node{next: head}
			head.data[0] = byte(i)
		}
		sum := 0
		for i := 1; i <= n; i++ {
			sum += i * i
		}
		results <- [2]int{n, sum}
	}
	_ = id
}

func main() {
	jobs := make(chan int)
	results := make(chan [2]int, 16)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go worker(w, jobs, results, &wg)
	}
	go func() {
		for n := 1; n <= 500; n++ {
			jobs <- n
		}
		close(jobs)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	sums := map[int]int{}
	for r := range results {
		sums[r[0]] = r[1]
	}
	runtime.GC()
	keys := make([]int, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	total := 0
	for _, k := range keys {
		total += sums[k]
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%d results, first %d, last %d, total %d\n", len(keys), sums[keys[0]],
		sums[keys[len(keys)-1]], total)
	fmt.Printf("collections happened: %v\n", ms.NumGC > 0)
}
