package harness;

import io.anserini.rerank.Reranker;
import io.anserini.search.ScoredDocs;
import io.anserini.search.query.BagOfWordsQueryGenerator;
import io.anserini.search.similarity.ImpactSimilarity;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * Batch retrieval for the harness: Anserini's search semantics, results moved to Python in bulk.
 *
 * <p>Each query is what Anserini's SimpleSearcher.search(String, int) runs: a
 * BagOfWordsQueryGenerator query over "contents" through the index's analyzer, hits ordered by
 * score descending and external id ascending (SimpleSearcher.BREAK_SCORE_TIES_BY_DOCID), so a tie
 * group that straddles the depth cut-off is cut exactly as Anserini cuts it; then Anserini's
 * ScoreTiesAdjusterReranker is applied to the scores.
 *
 * <p>What differs is how, not what. Anserini sorts with a TopFieldCollector on (score, id),
 * which reads the id doc values of every competitive hit. We collect the plain top k+1 by score
 * (Lucene's fastest path), widen the window while the last hit still ties with the k-th, and
 * then order each tie group by the rank of its external ids (UTF-8 byte order, as Lucene's
 * STRING_VAL sort compares them), precomputed once per index by {@link #setIdRanks}. No stored
 * document is loaded per hit and no Java object per hit crosses into Python. The results
 * of a batch come back as one little-endian byte[] ({@link Timed#packed}): int counts[nq], int
 * luceneDocids[total], float scores[total]. Python maps Lucene docids to external ids with
 * {@link #externalIds()}, read once per index.
 *
 * <p>Query expansion runs Anserini's own rerankers (Rm3Reranker, RocchioReranker,
 * BM25PrfReranker) on a first search of Anserini's depth, with a RerankerContext built as
 * SimpleSearcher builds it, then the same tie adjustment: what SimpleSearcher.set_rm3 /
 * set_rocchio and SearchCollection -bm25prf compute, on a thread pool across queries. The
 * `indri` model scores under Lucene's IndriAndQuery built from the bag-of-words clauses.
 *
 * <p>Impact search ({@link #impact}, {@link #impactWeights}) is Anserini's SimpleImpactSearcher
 * (and SearchCollection -impact -pretokenized): ImpactSimilarity, queries as term weights, the same
 * order, cut-off and tie adjustment.
 *
 * <p>Every batch is timed ({@link Timed}): each query's search on its thread, and the batch's wall
 * time, with System.nanoTime, for the run's latency figures (harness.engine.latency).
 *
 * <p>This class is the batch orchestration Python holds per index; each concept it calls is a
 * class of its own beside it: {@link AnseriniOrder}, {@link Expansion}, {@link IndriTermQuery},
 * {@link ImpactQueries}, {@link KnnSearch} (and {@link Similarities}, {@link IndexInfo},
 * {@link Documents}, which Python calls directly).
 */
public final class BatchSearcher implements AutoCloseable {
  static final String FIELD = "contents";
  static final String ID = "id";

  private final IndexReader reader;
  private final Analyzer analyzer;
  private int[] idRank; // Lucene docid -> rank of its external id; null: sort as Anserini does
  private final AtomicInteger done = new AtomicInteger(); // queries of the running search done (progress)
  // Field weights of a multifield index (BEIR's "contents" and "title"): each query is then
  // BagOfWordsQueryGenerator.buildQuery(fields, analyzer, text), what SimpleSearcher.search_fields
  // and SearchCollection -fields run; null: the "contents" field alone.
  private java.util.Map<String, Float> fields;

  public BatchSearcher(String indexPath, Analyzer analyzer) throws Exception {
    this.reader = DirectoryReader.open(FSDirectory.open(Paths.get(indexPath)));
    this.analyzer = analyzer;
  }

  /** {@link Expansion#rm3} through this index's analyzer (Python holds the BatchSearcher). */
  public Reranker<Object> rm3(int fbTerms, int fbDocs, float originalQueryWeight, boolean filterTerms) {
    return Expansion.rm3(analyzer, fbTerms, fbDocs, originalQueryWeight, filterTerms);
  }

  /** {@link Expansion#rocchio} through this index's analyzer. */
  public Reranker<Object> rocchio(
      int topFbTerms, int topFbDocs, int bottomFbTerms, int bottomFbDocs, float alpha, float beta, float gamma) {
    return Expansion.rocchio(analyzer, topFbTerms, topFbDocs, bottomFbTerms, bottomFbDocs, alpha, beta, gamma);
  }

  /** {@link Expansion#bm25prf} through this index's analyzer. */
  public Reranker<Object> bm25prf(int fbTerms, int fbDocs, float k1, float b, float newTermWeight) {
    return Expansion.bm25prf(analyzer, fbTerms, fbDocs, k1, b, newTermWeight);
  }

  public int numDocs() { return reader.numDocs(); }

  /**
   * Search these fields with these weights (a HashMap, as Pyserini's LuceneSearcher.search(fields=...)
   * hands SimpleSearcher: its iteration order is the order of the query's clauses); null: "contents".
   */
  public void setFields(java.util.Map<String, Float> fields) { this.fields = fields; }

  /** ranks[docid] = position of the document's external id in ascending UTF-8 byte order. */
  public void setIdRanks(int[] ranks) {
    if (ranks.length != reader.maxDoc()) throw new IllegalArgumentException("one rank per document");
    this.idRank = ranks;
  }

  public int maxDoc() { return reader.maxDoc(); }

  /**
   * Every document's external id in Lucene docid order, UTF-8, each followed by '\n'. Read from
   * the id's doc values (Anserini writes binary ones for its tie-break sort) in one sequential
   * pass, not by loading each stored document (which took 9-11 s for 200,000 documents here);
   * stored fields only where a segment has no id doc values.
   */
  public byte[] externalIds() throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(reader.maxDoc() * 12);
    for (LeafReaderContext leaf : reader.leaves()) {
      LeafReader r = leaf.reader();
      BinaryDocValues binary = r.getBinaryDocValues(ID);
      SortedDocValues sorted = binary == null ? r.getSortedDocValues(ID) : null;
      StoredFields stored = binary == null && sorted == null ? r.storedFields() : null;
      for (int i = 0; i < r.maxDoc(); i++) {
        BytesRef b = null;
        if (binary != null) {
          if (binary.advanceExact(i)) b = binary.binaryValue();
        } else if (sorted != null) {
          if (sorted.advanceExact(i)) b = sorted.lookupOrd(sorted.ordValue());
        } else {
          String id = stored.document(i, Set.of(ID)).get(ID);
          if (id != null) b = new BytesRef(id);
        }
        if (b != null) out.write(b.bytes, b.offset, b.length);
        out.write('\n');
      }
    }
    return out.toByteArray();
  }

  /**
   * Nearest neighbours of a batch of query vectors in a vectors index, as Anserini's
   * SearchFlatDenseVectors / SearchHnswDenseVectors run them: {@link KnnSearch#knn}.
   */
  public Timed knn(byte[] vectors, int dim, int k, int depth, int threads) throws Exception {
    return KnnSearch.knn(reader, vectors, dim, k, depth, threads);
  }

  /** The dimension of the vectors of {@link KnnSearch#VECTOR} (its first segment's); 0 when no segment has any. */
  public int vectorDimension() { return KnnSearch.vectorDimension(reader); }

  interface QueryTask { void run(int i) throws Exception; }

  /**
   * A batch's results, packed ({@link #pack}), and what its search took, measured in Java with
   * System.nanoTime. nanos[i]: the time query i took on the thread that searched it, from before
   * its query was built (the analysis of its text, its term weights, or its vector read) to after
   * its hits were in rank order (and, for text and impact searches, their scores tie-adjusted):
   * the Lucene search, and with expansion the first search, the reranker and its second search,
   * all inside; the time it waited for a thread of the pool, and packing the results, outside.
   * wall: the batch's wall time in the searcher, from before its thread pool is made to after its
   * last query ended. threads: the pool's size, min(threads asked, queries), at least 1.
   */
  public static final class Timed {
    private final byte[] packed;
    private final long[] nanos;
    private final long wall;
    private final int threads;

    Timed(byte[] packed, long[] nanos, long wall, int threads) {
      this.packed = packed;
      this.nanos = nanos;
      this.wall = wall;
      this.threads = threads;
    }

    /** {@link #pack}'s bytes. */
    public byte[] packed() { return packed; }

    /** Each query's nanoseconds, in the batch's order, as little-endian int64 (one byte[] to Python). */
    public byte[] nanos() {
      ByteBuffer buf = ByteBuffer.allocate(8 * nanos.length).order(ByteOrder.LITTLE_ENDIAN);
      for (long x : nanos) buf.putLong(x);
      return buf.array();
    }

    public long wall() { return wall; }

    public int threads() { return threads; }
  }

  /**
   * task(0..n-1) on `threads` threads, each query timed as {@link Timed} says and then counted in
   * `done` (progress; null: not counted); the results the tasks left in docs and scores, packed.
   */
  static Timed timed(int n, int threads, int[][] docs, float[][] scores, AtomicInteger done, QueryTask task)
      throws Exception {
    long[] nanos = new long[n];
    int t = Math.max(1, Math.min(threads, n));
    long start = System.nanoTime();
    forEach(n, t, i -> {
      long began = System.nanoTime();
      task.run(i);
      nanos[i] = System.nanoTime() - began;
      if (done != null) done.incrementAndGet();
    });
    long wall = System.nanoTime() - start;
    return new Timed(pack(docs, scores), nanos, wall, t);
  }

  /** task(0..n-1), on `threads` threads (one query on one thread; IndexSearcher is thread-safe). */
  static void forEach(int n, int threads, QueryTask task) throws Exception {
    int t = Math.max(1, Math.min(threads, n));
    if (t == 1) {
      for (int i = 0; i < n; i++) task.run(i);
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(t);
    try {
      List<Future<?>> futures = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        final int q = i;
        futures.add(pool.submit(() -> {
          task.run(q);
          return null;
        }));
      }
      for (Future<?> f : futures) f.get();
    } finally {
      pool.shutdown();
    }
  }

  /** int counts[n], int docids[total], float scores[total], little-endian. */
  static byte[] pack(int[][] docs, float[][] scores) {
    int total = 0;
    for (int[] d : docs) total += d.length;
    ByteBuffer buf = ByteBuffer.allocate(4 * (docs.length + 2 * total)).order(ByteOrder.LITTLE_ENDIAN);
    for (int[] d : docs) buf.putInt(d.length);
    for (int[] d : docs) for (int x : d) buf.putInt(x);
    for (float[] sc : scores) for (float x : sc) buf.putFloat(x);
    return buf.array();
  }

  /** The analyzed terms of a query text, joined by ' ' (for reports and tests). */
  public String analyze(String text) {
    return String.join(" ", io.anserini.analysis.AnalyzerUtils.analyze(analyzer, text));
  }

  /** Runs every query at depth k with the given similarity on `threads` threads. */
  public Timed search(String[] queries, Similarity similarity, int k, int threads) throws Exception {
    return search(queries, similarity, k, threads, false, null, 0);
  }

  /**
   * Runs every query at depth k on `threads` threads: with `indri`, as an IndriAndQuery; with a
   * reranker, as Anserini's cascade (a first search of depth `firstDepth`, the reranker, the tie
   * adjustment).
   */
  public Timed search(String[] queries, Similarity similarity, int k, int threads, boolean indri,
      Reranker<Object> reranker, int firstDepth) throws Exception {
    // No executor inside the searcher: one query runs on one thread and we parallelise across
    // queries. IndexSearcher is thread-safe; its similarity is set before any query runs.
    // Expansion: the rerankers turn every hit list into ScoredDocs, which loads each hit's stored
    // document; none of them reads those documents (without a -collection class), so a searcher
    // whose stored fields are empty spares that work and changes no docid or score.
    IndexSearcher s = reranker == null ? new IndexSearcher(reader) : new Expansion.NoStoredFields(reader);
    s.setSimilarity(similarity);
    int n = queries.length;
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    done.set(0);
    return timed(n, threads, docs, scores, done, i -> one(s, queries[i], k, i, docs, scores, indri, reranker, firstDepth));
  }

  /** How many queries of the search running now are done (read from another thread: progress). */
  public int done() { return done.get(); }

  private void one(IndexSearcher s, String text, int k, int i, int[][] docs, float[][] scores, boolean indri,
      Reranker<Object> reranker, int firstDepth) throws Exception {
    Query query = fields == null
        ? new BagOfWordsQueryGenerator().buildQuery(FIELD, analyzer, text)
        : new BagOfWordsQueryGenerator().buildQuery(fields, analyzer, text);
    if (indri) query = IndriTermQuery.indriQuery(query);
    if (reranker == null) {
      ranked(s, query, k, i, docs, scores);
      return;
    }
    ScoredDocs out = Expansion.rerank(s, top(s, query, firstDepth), query, text, k, analyzer, reranker);
    AnseriniOrder.adjustTies(out.scores);
    docs[i] = out.lucene_docids;
    scores[i] = out.scores;
  }

  /** The top k of `query` in Anserini's order, tie-adjusted, as the i-th query's results. */
  private void ranked(IndexSearcher s, Query query, int k, int i, int[][] docs, float[][] scores) throws Exception {
    ScoreDoc[] hits = top(s, query, k);
    int[] d = new int[hits.length];
    float[] sc = new float[hits.length];
    for (int j = 0; j < hits.length; j++) {
      d[j] = hits[j].doc;
      sc[j] = hits[j].score;
    }
    AnseriniOrder.adjustTies(sc);
    docs[i] = d;
    scores[i] = sc;
  }

  interface QueryOf { Query of(int i) throws Exception; }

  /** Anserini's impact search of pretokenized queries: {@link ImpactQueries#pretokenized}. */
  public Timed impact(String[] queries, int k, int threads) throws Exception {
    return impactSearch(queries.length, k, threads, ImpactQueries.pretokenized(queries));
  }

  /** Anserini's impact search of term weights: {@link ImpactQueries#weighted}. */
  public Timed impactWeights(String[] terms, int[] weights, int[] counts, int k, int threads) throws Exception {
    return impactSearch(counts.length, k, threads, ImpactQueries.weighted(terms, weights, counts));
  }

  private Timed impactSearch(int n, int k, int threads, QueryOf queries) throws Exception {
    IndexSearcher s = new IndexSearcher(reader);
    s.setSimilarity(new ImpactSimilarity());
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    done.set(0);
    return timed(n, threads, docs, scores, done, i -> ranked(s, queries.of(i), k, i, docs, scores));
  }

  private ScoreDoc[] top(IndexSearcher s, Query query, int k) throws Exception {
    return idRank == null ? s.search(query, k, AnseriniOrder.ANSERINI_ORDER, true).scoreDocs
        : AnseriniOrder.topByRank(s, query, k, idRank);
  }

  @Override
  public void close() throws Exception {
    reader.close();
  }
}