package harness;

import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * Anserini's order of hits, score descending and external id ascending
 * (SimpleSearcher.BREAK_SCORE_TIES_BY_DOCID), reached by ranks of the ids, and its
 * ScoreTiesAdjusterReranker.
 */
final class AnseriniOrder {
  static final Sort ANSERINI_ORDER =
      new Sort(SortField.FIELD_SCORE, new SortField(BatchSearcher.ID, SortField.Type.STRING_VAL));

  private AnseriniOrder() {}

  /** The top k by (score desc, external id asc): plain top-score collection, ties fixed after. */
  static ScoreDoc[] topByRank(IndexSearcher s, Query query, int k, int[] rank) throws Exception {
    int maxDoc = s.getIndexReader().maxDoc();
    int n = k + 1;
    ScoreDoc[] h;
    while (true) {
      h = s.search(query, n).scoreDocs;
      // Complete when fewer than n matched, or the last hit scores below the k-th: then every
      // document tied with the k-th is inside the window.
      if (h.length < n || h[n - 1].score < h[k - 1].score || n >= maxDoc) break;
      n = (int) Math.min((long) maxDoc, 2L * n);
    }
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
}
