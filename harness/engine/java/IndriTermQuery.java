package harness;

import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
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
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.BytesRef;

/**
 * A term query whose scorer is an IndriScorer. Lucene's IndriAndScorer scores only IndriScorer
 * children (it adds their smoothingScore for a document without the term), and Lucene ships no
 * term-level one: over plain TermQuery clauses every score is 0. This one scores as a TermScorer
 * does, the similarity's score(freq, norm) for a document with the term, and score(0, norm) as
 * the smoothing score of one without. A term the index lacks has no scorer (as TermQuery); a
 * term that only some segments hold still gets a scorer (with no documents) in the others, so
 * every document is smoothed for the same terms whatever the segment layout.
 */
final class IndriTermQuery extends Query {
  private final Term term;

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
