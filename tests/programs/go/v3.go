// A Go program built with GOAMD64=v3: the runtime refuses to start on a CPU
// without the v3 features (AVX2, BMI1/2, FMA, LZCNT, MOVBE), and the
// compiler emits BMI2 shifts, TZCNT/LZCNT and FMA for what is below.
// Goroutines share the work; the results are gathered in order, so the
// output is the same on every run.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"sync"
)

func mix(seed uint64, n int) (uint64, float64) {
	x := seed
	var acc uint64
	f := 0.0
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		acc += uint64(bits.TrailingZeros64(x|1)) + uint64(bits.LeadingZeros64(x|1)) +
			uint64(bits.OnesCount64(x)) + (x >> (x & 63)) + (x << (i & 63)) + bits.ReverseBytes64(x)
		f = math.FMA(float64(x>>40), 1.0/3.0, f)
	}
	return acc, f
}

func main() {
	const workers = 8
	accs := make([]uint64, workers)
	fs := make([]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			accs[w], fs[w] = mix(uint64(w)+1, 200000)
		}(w)
	}
	wg.Wait()
	for w := 0; w < workers; w++ {
		fmt.Printf("worker %d: %016x %x\n", w, accs[w], math.Float64bits(fs[w]))
	}

	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], binary.BigEndian.Uint64(buf[100:]))
	fmt.Printf("sha256 %x be %x\n", sha256.Sum256(buf), be)

	words := make([]string, 0, 5000)
	for i := 0; i < 5000; i++ {
		words = append(words, fmt.Sprintf("w%08x", bits.RotateLeft32(uint32(i)*2654435761, i%32)))
	}
	sort.Strings(words)
	fmt.Println("sorted", words[0], words[2500], words[4999])
	fmt.Println("sqrt", math.Sqrt(2), "pow", math.Pow(1.0001, 10000), "sin", math.Sin(1e6))
}
