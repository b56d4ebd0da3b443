package harness;

import io.anserini.search.query.BagOfWordsQueryGenerator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.LMDirichletSimilarity;
import org.apache.lucene.search.similarities.LMJelinekMercerSimilarity;
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
 * of a batch come back as one little-endian byte[]: int counts[nq], int luceneDocids[total],
 * float scores[total]. Python maps Lucene docids to external ids with {@link #externalIds()},
 * read once per index.
 */
public final class BatchSearcher implements AutoCloseable {
  static final String FIELD = "contents";
  static final String ID = "id";
  static final Sort ANSERINI_ORDER =
      new Sort(SortField.FIELD_SCORE, new SortField(ID, SortField.Type.STRING_VAL));

  private final IndexReader reader;
  private final Analyzer analyzer;
  private int[] idRank; // Lucene docid -> rank of its external id; null: sort as Anserini does

  public BatchSearcher(String indexPath, Analyzer analyzer) throws Exception {
    this.reader = DirectoryReader.open(FSDirectory.open(Paths.get(indexPath)));
    this.analyzer = analyzer;
  }

  public static Similarity bm25(float k1, float b) { return new BM25Similarity(k1, b); }

  public static Similarity dirichlet(float mu) { return new LMDirichletSimilarity(mu); }

  public static Similarity jelinekMercer(float lambda) { return new LMJelinekMercerSimilarity(lambda); }

  public int numDocs() { return reader.numDocs(); }

  /**
   * Statistics of an index's "contents" field, read in one call: documents, documents with
   * the field, total term occurrences, unique terms (one pass over the merged term dictionary).
   */
  public static long[] indexStats(String indexPath) throws Exception {
    try (IndexReader r = DirectoryReader.open(FSDirectory.open(Paths.get(indexPath)))) {
      long unique = 0;
      org.apache.lucene.index.Terms terms = org.apache.lucene.index.MultiTerms.getTerms(r, FIELD);
      if (terms != null) {
        org.apache.lucene.index.TermsEnum it = terms.iterator();
        while (it.next() != null) unique++;
      }
      return new long[] {r.numDocs(), r.getDocCount(FIELD), r.getSumTotalTermFreq(FIELD), unique};
    }
  }

  /** "java version|lucene version" of this JVM. */
  public static String versions() {
    return System.getProperty("java.version") + "|" + org.apache.lucene.util.Version.LATEST;
  }

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

  /** The analyzed terms of a query text, joined by ' ' (for reports and tests). */
  public String analyze(String text) {
    return String.join(" ", io.anserini.analysis.AnalyzerUtils.analyze(analyzer, text));
  }

  /** Runs every query at depth k with the given similarity on `threads` threads. */
  public byte[] search(String[] queries, Similarity similarity, int k, int threads) throws Exception {
    // No executor inside the searcher: one query runs on one thread and we parallelise across
    // queries. IndexSearcher is thread-safe; its similarity is set before any query runs.
    IndexSearcher s = new IndexSearcher(reader);
    s.setSimilarity(similarity);
    int n = queries.length;
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    int t = Math.max(1, Math.min(threads, n));
    if (t == 1) {
      for (int i = 0; i < n; i++) one(s, queries[i], k, i, docs, scores);
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(t);
      try {
        List<Future<?>> futures = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          final int q = i;
          futures.add(pool.submit(() -> { one(s, queries[q], k, q, docs, scores); return null; }));
        }
        for (Future<?> f : futures) f.get();
      } finally {
        pool.shutdown();
      }
    }
    int total = 0;
    for (int[] d : docs) total += d.length;
    ByteBuffer buf = ByteBuffer.allocate(4 * (n + 2 * total)).order(ByteOrder.LITTLE_ENDIAN);
    for (int[] d : docs) buf.putInt(d.length);
    for (int[] d : docs) for (int x : d) buf.putInt(x);
    for (float[] sc : scores) for (float x : sc) buf.putFloat(x);
    return buf.array();
  }

  private void one(IndexSearcher s, String text, int k, int i, int[][] docs, float[][] scores)
      throws Exception {
    Query query = new BagOfWordsQueryGenerator().buildQuery(FIELD, analyzer, text);
    ScoreDoc[] hits = idRank == null ? s.search(query, k, ANSERINI_ORDER, true).scoreDocs : topByRank(s, query, k);
    int[] d = new int[hits.length];
    float[] sc = new float[hits.length];
    for (int j = 0; j < hits.length; j++) {
      d[j] = hits[j].doc;
      sc[j] = hits[j].score;
    }
    adjustTies(sc);
    docs[i] = d;
    scores[i] = sc;
  }

  /** The top k by (score desc, external id asc): plain top-score collection, ties fixed after. */
  private ScoreDoc[] topByRank(IndexSearcher s, Query query, int k) throws Exception {
    int n = k + 1;
    ScoreDoc[] h;
    while (true) {
      h = s.search(query, n).scoreDocs;
      // Complete when fewer than n matched, or the last hit scores below the k-th: then every
      // document tied with the k-th is inside the window.
      if (h.length < n || h[n - 1].score < h[k - 1].score || n >= reader.maxDoc()) break;
      n = (int) Math.min((long) reader.maxDoc(), 2L * n);
    }
    int[] rank = idRank;
    for (int i = 0; i < h.length; ) {
      int j = i + 1;
      while (j < h.length && h[j].score == h[i].score) j++;
      if (j - i > 1) java.util.Arrays.sort(h, i, j, (x, y) -> Integer.compare(rank[x.doc], rank[y.doc]));
      i = j;
    }
    return h.length > k ? java.util.Arrays.copyOf(h, k) : h;
  }

  /**
   * Anserini's ScoreTiesAdjusterReranker, step for step in float arithmetic: round each score to
   * 4 decimals, then lower each score within 1e-4 of its predecessor by 1e-6 per position in
   * its run of near-ties.
   */
  static void adjustTies(float[] sc) {
    int dup = 0;
    for (int i = 0; i < sc.length; i++) {
      sc[i] = (float) (Math.round((double) sc[i] * 10000.0d) / 10000.0d);
      if (i == 0 || sc[i - 1] - sc[i] > 1.0E-4f) {
        dup = 0;
      } else {
        dup++;
        sc[i] = sc[i] - 1.0E-6f * (float) dup;
      }
    }
  }

  @Override
  public void close() throws Exception {
    reader.close();
  }
}
