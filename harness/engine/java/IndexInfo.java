package harness;

import java.nio.file.Paths;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;

/** What an index holds and which JVM reads it, each in one call from Python (no searcher needed). */
public final class IndexInfo {
  static final String FIELD = BatchSearcher.FIELD;
  static final String ID = BatchSearcher.ID;

  private IndexInfo() {}

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
}
