package harness;

import io.anserini.analysis.AnalyzerUtils;
import io.anserini.rerank.Reranker;
import io.anserini.rerank.RerankerContext;
import io.anserini.rerank.lib.BM25PrfReranker;
import io.anserini.rerank.lib.Rm3Reranker;
import io.anserini.rerank.lib.RocchioReranker;
import io.anserini.search.ScoredDocs;
import io.anserini.search.SearchCollection;
import io.anserini.search.query.BagOfWordsQueryGenerator;
import io.anserini.search.similarity.AccurateBM25Similarity;
import io.anserini.search.similarity.ImpactSimilarity;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.IndriAndQuery;
import org.apache.lucene.search.IndriScorer;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.AfterEffect;
import org.apache.lucene.search.similarities.AfterEffectB;
import org.apache.lucene.search.similarities.AfterEffectL;
import org.apache.lucene.search.similarities.AxiomaticF1EXP;
import org.apache.lucene.search.similarities.AxiomaticF1LOG;
import org.apache.lucene.search.similarities.AxiomaticF2EXP;
import org.apache.lucene.search.similarities.AxiomaticF2LOG;
import org.apache.lucene.search.similarities.AxiomaticF3EXP;
import org.apache.lucene.search.similarities.AxiomaticF3LOG;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.BasicModel;
import org.apache.lucene.search.similarities.BasicModelG;
import org.apache.lucene.search.similarities.BasicModelIF;
import org.apache.lucene.search.similarities.BasicModelIn;
import org.apache.lucene.search.similarities.BasicModelIne;
import org.apache.lucene.search.similarities.ClassicSimilarity;
import org.apache.lucene.search.similarities.DFISimilarity;
import org.apache.lucene.search.similarities.DFRSimilarity;
import org.apache.lucene.search.similarities.Distribution;
import org.apache.lucene.search.similarities.DistributionLL;
import org.apache.lucene.search.similarities.DistributionSPL;
import org.apache.lucene.search.similarities.IBSimilarity;
import org.apache.lucene.search.similarities.Independence;
import org.apache.lucene.search.similarities.IndependenceChiSquared;
import org.apache.lucene.search.similarities.IndependenceSaturated;
import org.apache.lucene.search.similarities.IndependenceStandardized;
import org.apache.lucene.search.similarities.IndriDirichletSimilarity;
import org.apache.lucene.search.similarities.LMDirichletSimilarity;
import org.apache.lucene.search.similarities.LMJelinekMercerSimilarity;
import org.apache.lucene.search.similarities.Lambda;
import org.apache.lucene.search.similarities.LambdaDF;
import org.apache.lucene.search.similarities.LambdaTTF;
import org.apache.lucene.search.similarities.Normalization;
import org.apache.lucene.search.similarities.NormalizationH1;
import org.apache.lucene.search.similarities.NormalizationH2;
import org.apache.lucene.search.similarities.NormalizationH3;
import org.apache.lucene.search.similarities.NormalizationZ;
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
 */
public final class BatchSearcher implements AutoCloseable {
  static final String FIELD = "contents";
  static final String ID = "id";
  static final String VECTOR = "vector"; // Anserini's Constants.VECTOR
  static final Sort ANSERINI_ORDER =
      new Sort(SortField.FIELD_SCORE, new SortField(ID, SortField.Type.STRING_VAL));

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

  public static Similarity bm25(float k1, float b) { return new BM25Similarity(k1, b); }

  public static Similarity dirichlet(float mu) { return new LMDirichletSimilarity(mu); }

  public static Similarity jelinekMercer(float lambda) { return new LMJelinekMercerSimilarity(lambda); }

  public static Similarity accurateBm25(float k1, float b) { return new AccurateBM25Similarity(k1, b); }

  public static Similarity tfidf() { return new ClassicSimilarity(); }

  /**
   * Indri's Dirichlet smoothing with Indri's collection model, P(t|C) = ctf / |C| (Lucene's
   * IndriDirichletSimilarity(mu) alone would use LMSimilarity's default model, (ctf + 1) / (|C| + 1)).
   */
  public static Similarity indri(float mu) {
    return new IndriDirichletSimilarity(new IndriDirichletSimilarity.IndriCollectionModel(), mu);
  }

  /** Lucene DFRSimilarity; basic model g|if|in|ine, after-effect b|l, normalisation as {@link #normalization}. */
  public static Similarity dfr(String basicModel, String afterEffect, String norm, float param) {
    BasicModel m = switch (basicModel) {
      case "g" -> new BasicModelG();
      case "if" -> new BasicModelIF();
      case "in" -> new BasicModelIn();
      case "ine" -> new BasicModelIne();
      default -> throw new IllegalArgumentException("basic model " + basicModel);
    };
    AfterEffect a = switch (afterEffect) {
      case "b" -> new AfterEffectB();
      case "l" -> new AfterEffectL();
      default -> throw new IllegalArgumentException("after-effect " + afterEffect);
    };
    return new DFRSimilarity(m, a, normalization(norm, param));
  }

  /** Lucene IBSimilarity; distribution ll|spl, lambda df|ttf. */
  public static Similarity ib(String distribution, String lambda, String norm, float param) {
    Distribution d = switch (distribution) {
      case "ll" -> new DistributionLL();
      case "spl" -> new DistributionSPL();
      default -> throw new IllegalArgumentException("distribution " + distribution);
    };
    Lambda l = switch (lambda) {
      case "df" -> new LambdaDF();
      case "ttf" -> new LambdaTTF();
      default -> throw new IllegalArgumentException("lambda " + lambda);
    };
    return new IBSimilarity(d, l, normalization(norm, param));
  }

  /** h1(c), h2(c), h3(mu), z(z) or none (param ignored). */
  static Normalization normalization(String name, float param) {
    return switch (name) {
      case "h1" -> new NormalizationH1(param);
      case "h2" -> new NormalizationH2(param);
      case "h3" -> new NormalizationH3(param);
      case "z" -> new NormalizationZ(param);
      case "none" -> new Normalization.NoNormalization();
      default -> throw new IllegalArgumentException("normalization " + name);
    };
  }

  /** Lucene DFISimilarity with the independence measure standardized|saturated|chisquared. */
  public static Similarity dfi(String measure) {
    Independence i = switch (measure) {
      case "standardized" -> new IndependenceStandardized();
      case "saturated" -> new IndependenceSaturated();
      case "chisquared" -> new IndependenceChiSquared();
      default -> throw new IllegalArgumentException("independence measure " + measure);
    };
    return new DFISimilarity(i);
  }

  /** Lucene's axiomatic functions, each with the arguments it takes. */
  public static Similarity axiomatic(String function, float s, float k, int queryLen) {
    return switch (function) {
      case "f1exp" -> new AxiomaticF1EXP(s, k);
      case "f1log" -> new AxiomaticF1LOG(s);
      case "f2exp" -> new AxiomaticF2EXP(s, k);
      case "f2log" -> new AxiomaticF2LOG(s);
      case "f3exp" -> new AxiomaticF3EXP(s, queryLen, k);
      case "f3log" -> new AxiomaticF3LOG(s, queryLen);
      default -> throw new IllegalArgumentException("axiomatic function " + function);
    };
  }

  /**
   * Anserini's Rm3Reranker as SimpleSearcher.set_rm3(fbTerms, fbDocs, w, false, filterTerms) makes it.
   * filterTerms (Anserini's default) keeps only feedback terms matching [a-z0-9]+; false is
   * SearchCollection's -rm3.noTermFilter, which a language outside ASCII needs.
   */
  public Reranker<Object> rm3(int fbTerms, int fbDocs, float originalQueryWeight, boolean filterTerms) {
    return new Rm3Reranker<Object>(analyzer, null, FIELD, fbTerms, fbDocs, originalQueryWeight, false, filterTerms);
  }

  /** Anserini's RocchioReranker; negative feedback (useNegative) exactly when gamma > 0. */
  public Reranker<Object> rocchio(
      int topFbTerms, int topFbDocs, int bottomFbTerms, int bottomFbDocs, float alpha, float beta, float gamma) {
    return new RocchioReranker<Object>(analyzer, null, FIELD, topFbTerms, topFbDocs, bottomFbTerms, bottomFbDocs,
        alpha, beta, gamma, false, gamma > 0);
  }

  /** Anserini's BM25PrfReranker as SearchCollection -bm25prf makes it. */
  public Reranker<Object> bm25prf(int fbTerms, int fbDocs, float k1, float b, float newTermWeight) {
    return new BM25PrfReranker<Object>(analyzer, null, FIELD, fbTerms, fbDocs, k1, b, newTermWeight, false);
  }

  public int numDocs() { return reader.numDocs(); }

  /**
   * Sets an indexer's String[] option (IndexCollection.Args.fields, `-fields title`): pyjnius
   * cannot assign a Java array to a field, but passes a list as a String[] argument.
   */
  public static void setStrings(Object args, String name, String[] values) throws Exception {
    args.getClass().getField(name).set(args, values);
  }

  /**
   * Search these fields with these weights (a HashMap, as Pyserini's LuceneSearcher.search(fields=...)
   * hands SimpleSearcher: its iteration order is the order of the query's clauses); null: "contents".
   */
  public void setFields(java.util.Map<String, Float> fields) { this.fields = fields; }

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

  /**
   * Which of `ids` the index's "id" field lacks: their positions in `ids`, in order. One call
   * for a whole sample (the sanity check of qrels against the collection): a docFreq call per
   * id through pyjnius cost ~0.2 s for 1,400 ids.
   */
  public static int[] missingIds(String indexPath, String[] ids) throws Exception {
    try (IndexReader r = DirectoryReader.open(FSDirectory.open(Paths.get(indexPath)))) {
      int[] out = new int[ids.length];
      int n = 0;
      for (int i = 0; i < ids.length; i++) {
        if (r.docFreq(new Term(ID, ids[i])) == 0) out[n++] = i;
      }
      return java.util.Arrays.copyOf(out, n);
    }
  }

  /**
   * What an index stores, as "key=value" lines: documents, positions and term vectors (document
   * vectors) of "contents", whether a "raw" text and an "id" are stored and "id" has sorted doc
   * values (Anserini's tie order). Read from the field infos and the first document only.
   */
  public static String describe(String indexPath) throws Exception {
    try (IndexReader r = DirectoryReader.open(FSDirectory.open(Paths.get(indexPath)))) {
      FieldInfos infos = FieldInfos.getMergedFieldInfos(r);
      FieldInfo contents = infos.fieldInfo(FIELD);
      FieldInfo id = infos.fieldInfo(ID);
      FieldInfo raw = infos.fieldInfo("raw");
      boolean storedId = false, storedRaw = false;
      if (r.maxDoc() > 0) {
        Document d = r.storedFields().document(0);
        storedId = d.get(ID) != null;
        storedRaw = d.get("raw") != null;
      }
      StringBuilder out = new StringBuilder();
      out.append("documents=").append(r.numDocs()).append('\n');
      out.append("contents=").append(contents != null).append('\n');
      out.append("positions=").append(contents != null
          && contents.getIndexOptions().compareTo(org.apache.lucene.index.IndexOptions.DOCS_AND_FREQS_AND_POSITIONS) >= 0).append('\n');
      out.append("docvectors=").append(contents != null && contents.hasTermVectors()).append('\n');
      out.append("raw=").append(raw != null && storedRaw).append('\n');
      out.append("id=").append(storedId).append('\n');
      out.append("id_docvalues=").append(id != null
          && id.getDocValuesType() == org.apache.lucene.index.DocValuesType.SORTED).append('\n');
      return out.toString();
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

  /**
   * Nearest neighbours of a batch of query vectors in a vectors index (Anserini's dense indexes:
   * the vector in "vector", the external id in "id"), each query what Anserini's
   * SearchFlatDenseVectors / SearchHnswDenseVectors run: search(new KnnFloatVectorQuery("vector",
   * q, k), depth, ANSERINI_ORDER, true), scores unrounded. The vectors come as one little-endian
   * float32 byte[] (n rows of `dim`), the results as {@link #search}'s byte[]; Python maps the
   * docids with {@link #externalIds()}, read once per index, instead of a stored document per hit.
   */
  public byte[] knn(byte[] vectors, int dim, int k, int depth, int threads) throws Exception {
    java.nio.FloatBuffer all = ByteBuffer.wrap(vectors).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    int n = all.remaining() / dim;
    IndexSearcher s = new IndexSearcher(reader);
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    forEach(n, threads, i -> {
      float[] q = new float[dim];
      all.duplicate().position(i * dim).get(q);
      ScoreDoc[] hits = s.search(new KnnFloatVectorQuery(VECTOR, q, k), depth, ANSERINI_ORDER, true).scoreDocs;
      int[] d = new int[hits.length];
      float[] sc = new float[hits.length];
      for (int j = 0; j < hits.length; j++) {
        d[j] = hits[j].doc;
        sc[j] = hits[j].score;
      }
      docs[i] = d;
      scores[i] = sc;
    });
    return pack(docs, scores);
  }

  /** The dimension of the vectors of {@link #VECTOR} (its first segment's); 0 when no segment has any. */
  public int vectorDimension() {
    for (LeafReaderContext leaf : reader.leaves()) {
      FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(VECTOR);
      if (info != null && info.getVectorDimension() > 0) return info.getVectorDimension();
    }
    return 0;
  }

  interface QueryTask { void run(int i) throws Exception; }

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
  public byte[] search(String[] queries, Similarity similarity, int k, int threads) throws Exception {
    return search(queries, similarity, k, threads, false, null, 0);
  }

  /**
   * Runs every query at depth k on `threads` threads: with `indri`, as an IndriAndQuery; with a
   * reranker, as Anserini's cascade (a first search of depth `firstDepth`, the reranker, the tie
   * adjustment).
   */
  public byte[] search(String[] queries, Similarity similarity, int k, int threads, boolean indri,
      Reranker<Object> reranker, int firstDepth) throws Exception {
    // No executor inside the searcher: one query runs on one thread and we parallelise across
    // queries. IndexSearcher is thread-safe; its similarity is set before any query runs.
    // Expansion: the rerankers turn every hit list into ScoredDocs, which loads each hit's stored
    // document; none of them reads those documents (without a -collection class), so a searcher
    // whose stored fields are empty spares that work and changes no docid or score.
    IndexSearcher s = reranker == null ? new IndexSearcher(reader) : new NoStoredFields(reader);
    s.setSimilarity(similarity);
    int n = queries.length;
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    done.set(0);
    forEach(n, threads, i -> {
      one(s, queries[i], k, i, docs, scores, indri, reranker, firstDepth);
      done.incrementAndGet();
    });
    return pack(docs, scores);
  }

  /** How many queries of the search running now are done (read from another thread: progress). */
  public int done() { return done.get(); }

  private void one(IndexSearcher s, String text, int k, int i, int[][] docs, float[][] scores, boolean indri,
      Reranker<Object> reranker, int firstDepth) throws Exception {
    Query query = fields == null
        ? new BagOfWordsQueryGenerator().buildQuery(FIELD, analyzer, text)
        : new BagOfWordsQueryGenerator().buildQuery(fields, analyzer, text);
    if (indri) query = indriQuery(query);
    if (reranker == null) {
      ranked(s, query, k, i, docs, scores);
      return;
    }
    ScoredDocs out = rerank(s, query, text, k, reranker, firstDepth);
    adjustTies(out.scores);
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
    adjustTies(sc);
    docs[i] = d;
    scores[i] = sc;
  }

  interface QueryOf { Query of(int i) throws Exception; }

  /**
   * Anserini's impact search of pretokenized queries (SearchCollection -impact -pretokenized,
   * SimpleImpactSearcher.search(String, k)): each query split by Lucene's WhitespaceAnalyzer,
   * whatever the index's analyzer, and a token's occurrences its weight
   * (BagOfWordsQueryGenerator: BoostQuery(term, count)); scored by ImpactSimilarity.
   */
  public byte[] impact(String[] queries, int k, int threads) throws Exception {
    Analyzer whitespace = new WhitespaceAnalyzer();
    return impactSearch(queries.length, k, threads,
        i -> new BagOfWordsQueryGenerator().buildQuery(FIELD, whitespace, queries[i]));
  }

  /**
   * Anserini's impact search of term weights (SimpleImpactSearcher.search(Map<String, Integer>, k)):
   * query q is the terms terms[o..o + counts[q]) with their weights (o: the counts before q),
   * each weight an Integer made a float as SimpleImpactSearcher's intToFloat does, the query
   * BagOfWordsQueryGenerator.buildQuery(field, weights): a clause per term, weight 0 included.
   */
  public byte[] impactWeights(String[] terms, int[] weights, int[] counts, int k, int threads) throws Exception {
    int[] start = new int[counts.length + 1];
    for (int q = 0; q < counts.length; q++) start[q + 1] = start[q] + counts[q];
    return impactSearch(counts.length, k, threads, q -> {
      Map<String, Float> weighted = new HashMap<>();
      for (int j = start[q]; j < start[q + 1]; j++) weighted.put(terms[j], Integer.valueOf(weights[j]).floatValue());
      return new BagOfWordsQueryGenerator().buildQuery(FIELD, weighted);
    });
  }

  private byte[] impactSearch(int n, int k, int threads, QueryOf queries) throws Exception {
    IndexSearcher s = new IndexSearcher(reader);
    s.setSimilarity(new ImpactSimilarity());
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    done.set(0);
    forEach(n, threads, i -> {
      ranked(s, queries.of(i), k, i, docs, scores);
      done.incrementAndGet();
    });
    return pack(docs, scores);
  }

  private ScoreDoc[] top(IndexSearcher s, Query query, int k) throws Exception {
    return idRank == null ? s.search(query, k, ANSERINI_ORDER, true).scoreDocs : topByRank(s, query, k);
  }

  /**
   * Anserini's expansion for one query: the first search (same order as SimpleSearcher's), its
   * hits as ScoredDocs, a RerankerContext as SimpleSearcher makes it (hits = k), the reranker.
   * The rerankers read only the docids, scores and the length of lucene_documents of their
   * input, so the first search's stored documents are not loaded (SimpleSearcher loads them).
   */
  private ScoredDocs rerank(IndexSearcher s, Query query, String text, int k, Reranker<Object> reranker,
      int firstDepth) throws Exception {
    ScoreDoc[] hits = top(s, query, firstDepth);
    ScoredDocs first = new ScoredDocs();
    first.lucene_docids = new int[hits.length];
    first.scores = new float[hits.length];
    first.docids = new String[hits.length];
    first.lucene_documents = new Document[hits.length];
    for (int j = 0; j < hits.length; j++) {
      first.lucene_docids[j] = hits[j].doc;
      first.scores[j] = hits[j].score;
    }
    SearchCollection.Args args = new SearchCollection.Args();
    args.hits = k;
    List<String> tokens = AnalyzerUtils.analyze(analyzer, text);
    RerankerContext<Object> context = new RerankerContext<>(s, null, query, null, text, tokens, null, args);
    return reranker.rerank(first, context);
  }

  static final class NoStoredFields extends IndexSearcher {
    private static final StoredFields EMPTY = new StoredFields() {
      @Override
      public void document(int docID, org.apache.lucene.index.StoredFieldVisitor visitor) {}
    };

    NoStoredFields(IndexReader reader) { super(reader); }

    @Override
    public StoredFields storedFields() { return EMPTY; }
  }

  /**
   * The analyzer's tokens of each text, for highlighting: one String per text, a line
   * "start end term" per token, offsets in code points (Python's string indices; Java's own
   * offsets count UTF-16 units, which differ after any character outside the BMP). One call for
   * a whole batch: through pyjnius, reading attributes token by token cost ~27 us per token.
   */
  public static String[] tokens(Analyzer analyzer, String[] texts) throws Exception {
    return tokens(analyzer, texts, new String[texts.length]);
  }

  /**
   * {@link #tokens(Analyzer, String[])}, keeping of text i only the tokens whose term is one of
   * the lines of keep[i] (all of them when keep[i] is null): the explorer needs only the tokens
   * its queries' terms match, and parsing every token of 1,183 documents in Python took 0.15-0.26 s.
   */
  public static String[] tokens(Analyzer analyzer, String[] texts, String[] keep) throws Exception {
    String[] out = new String[texts.length];
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < texts.length; i++) {
      sb.setLength(0);
      String t = texts[i];
      Set<String> wanted = null;
      if (keep[i] != null) wanted = new java.util.HashSet<>(java.util.Arrays.asList(keep[i].split("\n", -1)));
      boolean astral = t.length() != t.codePointCount(0, t.length());
      int unit = 0, cp = 0; // last converted offset, in UTF-16 units and in code points
      try (TokenStream ts = analyzer.tokenStream(FIELD, t)) {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        OffsetAttribute off = ts.addAttribute(OffsetAttribute.class);
        ts.reset();
        while (ts.incrementToken()) {
          int start = off.startOffset(), end = off.endOffset();
          boolean kept = wanted == null || wanted.contains(term.toString());
          if (astral) {
            if (start < unit) { unit = 0; cp = 0; }
            cp += t.codePointCount(unit, start);
            unit = start;
            if (!kept) continue;
            int cpEnd = cp + t.codePointCount(start, end);
            sb.append(cp).append(' ').append(cpEnd);
          } else {
            if (!kept) continue;
            sb.append(start).append(' ').append(end);
          }
          sb.append(' ').append(term).append('\n');
        }
        ts.end();
      }
      out[i] = sb.toString();
    }
    return out;
  }

  /**
   * The stored "raw" text of each id's document (null: no such document, or no raw text stored),
   * in one call. The document is the first live one, in Lucene's doc order, whose "id" field
   * holds the id. Per document through pyjnius (IndexReaderUtils.documentRaw, which builds an
   * IndexSearcher for each call) the explorer's 1,183 documents of Cranfield x10 took 0.52 s.
   */
  public static String[] raws(IndexReader reader, String[] ids) throws Exception {
    String[] out = new String[ids.length];
    List<LeafReaderContext> leaves = reader.leaves();
    TermsEnum[] enums = new TermsEnum[leaves.size()];
    for (int l = 0; l < enums.length; l++) {
      Terms terms = leaves.get(l).reader().terms(ID);
      enums[l] = terms == null ? null : terms.iterator();
    }
    StoredFields stored = reader.storedFields();
    PostingsEnum postings = null;
    for (int i = 0; i < ids.length; i++) {
      org.apache.lucene.util.BytesRef key = new org.apache.lucene.util.BytesRef(ids[i]);
      int found = -1;
      for (int l = 0; l < enums.length && found < 0; l++) {
        if (enums[l] == null || !enums[l].seekExact(key)) continue;
        LeafReader leaf = leaves.get(l).reader();
        org.apache.lucene.util.Bits live = leaf.getLiveDocs();
        postings = enums[l].postings(postings, PostingsEnum.NONE);
        for (int d = postings.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = postings.nextDoc()) {
          if (live == null || live.get(d)) {
            found = leaves.get(l).docBase + d;
            break;
          }
        }
      }
      if (found >= 0) out[i] = stored.document(found).get("raw");
    }
    return out;
  }

  /**
   * The bag-of-words query as Indri's #combine: one clause per query token under IndriAndQuery
   * (a term the query repeats k times, BagOfWordsQueryGenerator's BoostQuery(term, k), as k
   * clauses), each an {@link IndriTermQuery}. IndriAndScorer then scores a document as the mean
   * over the tokens of log((tf + mu P(t|C)) / (|d| + mu)), absent terms included.
   */
  static Query indriQuery(Query bow) {
    if (!(bow instanceof BooleanQuery bq)) return bow;
    List<BooleanClause> clauses = new ArrayList<>();
    for (BooleanClause c : bq.clauses()) {
      Query q = c.query();
      int times = 1;
      if (q instanceof BoostQuery b) {
        times = Math.max(1, Math.round(b.getBoost()));
        q = b.getQuery();
      }
      for (int i = 0; i < times; i++) clauses.add(new BooleanClause(new IndriTermQuery(q), BooleanClause.Occur.SHOULD));
    }
    return clauses.isEmpty() ? bow : new IndriAndQuery(clauses);
  }

  /**
   * A term query whose scorer is an IndriScorer. Lucene's IndriAndScorer scores only IndriScorer
   * children (it adds their smoothingScore for a document without the term), and Lucene ships no
   * term-level one: over plain TermQuery clauses every score is 0. This one scores as a TermScorer
   * does, the similarity's score(freq, norm) for a document with the term, and score(0, norm) as
   * the smoothing score of one without. A term the index lacks has no scorer (as TermQuery); a
   * term that only some segments hold still gets a scorer (with no documents) in the others, so
   * every document is smoothed for the same terms whatever the segment layout.
   */
  static final class IndriTermQuery extends Query {
    private final Term term;

    IndriTermQuery(Query q) {
      if (!(q instanceof TermQuery tq)) throw new IllegalArgumentException("not a term query: " + q);
      this.term = tq.getTerm();
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws java.io.IOException {
      IndexReader r = searcher.getIndexReader();
      long df = r.docFreq(term), ttf = r.totalTermFreq(term);
      CollectionStatistics cs = searcher.collectionStatistics(term.field());
      final Similarity.SimScorer sim = df == 0 || cs == null ? null
          : searcher.getSimilarity().scorer(boost, cs, searcher.termStatistics(term, (int) df, ttf));
      final String field = term.field();
      final BytesRef bytes = term.bytes();
      return new Weight(this) {
        @Override
        public ScorerSupplier scorerSupplier(LeafReaderContext ctx) throws java.io.IOException {
          if (sim == null) return null;
          Terms terms = ctx.reader().terms(field);
          TermsEnum te = terms == null ? null : terms.iterator();
          final DocIdSetIterator postings = te != null && te.seekExact(bytes)
              ? te.postings(null, PostingsEnum.FREQS) : DocIdSetIterator.empty();
          final NumericDocValues norms = ctx.reader().getNormValues(field);
          return new ScorerSupplier() {
            @Override
            public Scorer get(long leadCost) {
              return new IndriScorer(1f) {
                long norm(int doc) throws java.io.IOException {
                  return norms != null && norms.advanceExact(doc) ? norms.longValue() : 1L;
                }
                @Override public DocIdSetIterator iterator() { return postings; }
                @Override public float getMaxScore(int upTo) { return Float.MAX_VALUE; }
                @Override public float score() throws java.io.IOException {
                  return sim.score(((PostingsEnum) postings).freq(), norm(postings.docID()));
                }
                @Override public float smoothingScore(int docId) throws java.io.IOException {
                  return sim.score(0, norm(docId));
                }
                @Override public int docID() { return postings.docID(); }
              };
            }

            @Override
            public long cost() { return postings.cost(); }
          };
        }

        @Override
        public boolean isCacheable(LeafReaderContext ctx) { return true; }

        @Override
        public Explanation explain(LeafReaderContext ctx, int doc) {
          return Explanation.noMatch("IndriTermQuery does not explain");
        }
      };
    }

    @Override
    public void visit(QueryVisitor visitor) {
      if (visitor.acceptField(term.field())) visitor.consumeTerms(this, term);
    }

    @Override
    public String toString(String field) { return "indri(" + term + ")"; }

    @Override
    public boolean equals(Object o) { return o instanceof IndriTermQuery other && term.equals(other.term); }

    @Override
    public int hashCode() { return 31 * term.hashCode() + 7; }
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
