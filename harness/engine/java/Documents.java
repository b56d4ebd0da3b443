package harness;

import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;

/** Documents for the explorer (harness.engine.documents): their tokens and raw texts, a batch per call. */
public final class Documents {
  static final String FIELD = BatchSearcher.FIELD;
  static final String ID = BatchSearcher.ID;

  private Documents() {}

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
}
