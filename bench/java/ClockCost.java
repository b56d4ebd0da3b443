/**
 * What one System.nanoTime call costs on this machine (bench/bench_latency.py): BatchSearcher
 * reads the clock twice a query to time it. Prints the nanoseconds a call of the fastest of
 * `runs` runs of `calls` calls each (the fastest: the least disturbed by other load).
 */
public final class ClockCost {
  public static void main(String[] args) {
    int calls = Integer.parseInt(args[0]);
    int runs = Integer.parseInt(args[1]);
    long best = Long.MAX_VALUE;
    long sink = 0;
    for (int r = 0; r < runs; r++) {
      long start = System.nanoTime();
      for (int i = 0; i < calls; i++) sink += System.nanoTime();
      best = Math.min(best, System.nanoTime() - start);
    }
    System.out.println((double) best / calls + (sink == 42 ? " " : ""));
  }
}
