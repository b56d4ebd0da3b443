package harness;

import io.anserini.search.query.BagOfWordsQueryGenerator;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;

/**
 * The queries of Anserini's impact search, in its two forms ({@link BatchSearcher#impact},
 * {@link BatchSearcher#impactWeights}); scored by ImpactSimilarity.
 */
final class ImpactQueries {
  static final String FIELD = BatchSearcher.FIELD;

  private ImpactQueries() {}

  /**
   * Anserini's impact search of pretokenized queries (SearchCollection -impact -pretokenized,
   * SimpleImpactSearcher.search(String, k)): each query split by Lucene's WhitespaceAnalyzer,
   * whatever the index's analyzer, and a token's occurrences its weight
   * (BagOfWordsQueryGenerator: BoostQuery(term, count)).
   */
  static BatchSearcher.QueryOf pretokenized(String[] queries) {
    Analyzer whitespace = new WhitespaceAnalyzer();
    return i -> new BagOfWordsQueryGenerator().buildQuery(FIELD, whitespace, queries[i]);
  }

  /**
   * Anserini's impact search of term weights (SimpleImpactSearcher.search(Map<String, Integer>, k)):
   * query q is the terms terms[o..o + counts[q]) with their weights (o: the counts before q),
   * each weight an Integer made a float as SimpleImpactSearcher's intToFloat does, the query
   * BagOfWordsQueryGenerator.buildQuery(field, weights): a clause per term, weight 0 included.
   */
  static BatchSearcher.QueryOf weighted(String[] terms, int[] weights, int[] counts) {
    int[] start = new int[counts.length + 1];
    for (int q = 0; q < counts.length; q++) start[q + 1] = start[q] + counts[q];
    return q -> {
      Map<String, Float> weighted = new HashMap<>();
      for (int j = start[q]; j < start[q + 1]; j++) weighted.put(terms[j], Integer.valueOf(weights[j]).floatValue());
      return new BagOfWordsQueryGenerator().buildQuery(FIELD, weighted);
    };
  }
}
