import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.store.FSDirectory;

/**
 * The benchmark's reference (bench/bench_dense.py): a plain Java loop running, per query, the
 * Lucene query Anserini's SearchFlatDenseVectors / SearchHnswDenseVectors run (their searchers
 * need the network) and reading each hit's stored id as they do, on a fixed thread pool.
 *
 * <p>Usage: DenseLoop INDEX QUERIES.f32 DIM K DEPTH THREADS REPEATS; prints the best batch time
 * in seconds (after one warm-up batch) and the number of hits.
 */
public final class DenseLoop {
  public static void main(String[] a) throws Exception {
    String index = a[0];
    byte[] raw = Files.readAllBytes(Paths.get(a[1]));
    int dim = Integer.parseInt(a[2]), k = Integer.parseInt(a[3]), depth = Integer.parseInt(a[4]);
    int threads = Integer.parseInt(a[5]), repeats = Integer.parseInt(a[6]);
    FloatBuffer all = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    int n = all.remaining() / dim;
    float[][] queries = new float[n][dim];
    for (int i = 0; i < n; i++) all.get(queries[i]);
    Sort sort = new Sort(SortField.FIELD_SCORE, new SortField("id", SortField.Type.STRING_VAL));
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(Paths.get(index)))) {
      IndexSearcher searcher = new IndexSearcher(reader);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      double best = Double.MAX_VALUE;
      long hits = 0;
      for (int r = 0; r <= repeats; r++) {
        long t0 = System.nanoTime();
        List<Future<Integer>> futures = new ArrayList<>();
        for (float[] q : queries) {
          futures.add(pool.submit(() -> {
            ScoreDoc[] h = searcher.search(new KnnFloatVectorQuery("vector", q, k), depth, sort, true).scoreDocs;
            StoredFields stored = searcher.storedFields();
            int c = 0;
            for (ScoreDoc d : h) if (stored.document(d.doc, Set.of("id")).get("id") != null) c++;
            return c;
          }));
        }
        long got = 0;
        for (Future<Integer> f : futures) got += f.get();
        double s = (System.nanoTime() - t0) / 1e9;
        if (r > 0) best = Math.min(best, s); // the first batch warms the JIT and the page cache
        hits = got;
      }
      pool.shutdown();
      System.out.println(best + " " + hits);
    }
  }
}
