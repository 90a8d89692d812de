// Timer accuracy in Go, the workload of kpn-bench --only timers: one goroutine calls time.Sleep(1 ms)
// 10,000 times; lateness = wake-up - (call + 1 ms). Prints one JSON line: median, p99 and max in microseconds.
// ../shared/peers has no timer workload; this is its Go side for kpn (scripts/peers-timers/run.sh builds it).
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"
)

func main() {
	n := 10000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	late := make([]float64, 0, n)
	done := make(chan struct{})
	go func() {
		for i := 0; i < n; i++ {
			due := time.Now().Add(time.Millisecond)
			time.Sleep(time.Millisecond)
			late = append(late, float64(time.Since(due).Nanoseconds())/1000)
		}
		close(done)
	}()
	<-done
	sort.Float64s(late)
	pick := func(p float64) float64 { return late[int(p*float64(len(late)-1)+0.5)] }
	fmt.Printf("{\"peer\":\"go\",\"workload\":\"sleep\",\"n\":%d,\"gomaxprocs\":%d,\"lateness_median_us\":%.1f,\"lateness_p99_us\":%.1f,\"lateness_max_us\":%.1f}\n",
		n, runtime.GOMAXPROCS(0), pick(0.5), pick(0.99), late[len(late)-1])
}
