package harness;

import io.anserini.analysis.AnalyzerUtils;
import io.anserini.rerank.Reranker;
import io.anserini.rerank.RerankerContext;
import io.anserini.rerank.lib.BM25PrfReranker;
import io.anserini.rerank.lib.Rm3Reranker;
import io.anserini.rerank.lib.RocchioReranker;
import io.anserini.search.ScoredDocs;
import io.anserini.search.SearchCollection;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;

/**
 * Query expansion as Anserini runs it: its rerankers (Rm3Reranker, RocchioReranker,
 * BM25PrfReranker) made as SimpleSearcher and SearchCollection make them, applied to a first
 * search's hits with a RerankerContext built as SimpleSearcher builds it.
 */
final class Expansion {
  static final String FIELD = BatchSearcher.FIELD;

  private Expansion() {}

  /**
   * Anserini's Rm3Reranker as SimpleSearcher.set_rm3(fbTerms, fbDocs, w, false, filterTerms) makes it.
   * filterTerms (Anserini's default) keeps only feedback terms matching [a-z0-9]+; false is
   * SearchCollection's -rm3.noTermFilter, which a language outside ASCII needs.
   */
  static Reranker<Object> rm3(Analyzer analyzer, int fbTerms, int fbDocs, float originalQueryWeight, boolean filterTerms) {
    return new Rm3Reranker<Object>(analyzer, null, FIELD, fbTerms, fbDocs, originalQueryWeight, false, filterTerms);
  }

  /** Anserini's RocchioReranker; negative feedback (useNegative) exactly when gamma > 0. */
  static Reranker<Object> rocchio(Analyzer analyzer,
      int topFbTerms, int topFbDocs, int bottomFbTerms, int bottomFbDocs, float alpha, float beta, float gamma) {
    return new RocchioReranker<Object>(analyzer, null, FIELD, topFbTerms, topFbDocs, bottomFbTerms, bottomFbDocs,
        alpha, beta, gamma, false, gamma > 0);
  }

  /** Anserini's BM25PrfReranker as SearchCollection -bm25prf makes it. */
  static Reranker<Object> bm25prf(Analyzer analyzer, int fbTerms, int fbDocs, float k1, float b, float newTermWeight) {
    return new BM25PrfReranker<Object>(analyzer, null, FIELD, fbTerms, fbDocs, k1, b, newTermWeight, false);
  }

  /**
   * Anserini's expansion for one query: the hits of the first search (same order as
   * SimpleSearcher's, {@link BatchSearcher}'s) as ScoredDocs, a RerankerContext as SimpleSearcher makes it (hits = k), the reranker.
   * The rerankers read only the docids, scores and the length of lucene_documents of their
   * input, so the first search's stored documents are not loaded (SimpleSearcher loads them).
   */
  static ScoredDocs rerank(IndexSearcher s, ScoreDoc[] hits, Query query, String text, int k, Analyzer analyzer,
      Reranker<Object> reranker) throws Exception {
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

  /**
   * A searcher whose stored fields are empty: the rerankers turn every hit list into ScoredDocs,
   * which loads each hit's stored document, and none of them reads those documents.
   */
  static final class NoStoredFields extends IndexSearcher {
    private static final StoredFields EMPTY = new StoredFields() {
      @Override
      public void document(int docID, org.apache.lucene.index.StoredFieldVisitor visitor) {}
    };

    NoStoredFields(IndexReader reader) { super(reader); }

    @Override
    public StoredFields storedFields() { return EMPTY; }
  }
}
