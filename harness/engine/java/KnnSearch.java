package harness;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;

/** Dense (knn) search of a vectors index, for {@link BatchSearcher#knn} and {@link BatchSearcher#vectorDimension}. */
final class KnnSearch {
  static final String VECTOR = "vector"; // Anserini's Constants.VECTOR

  private KnnSearch() {}

  /**
   * Nearest neighbours of a batch of query vectors in a vectors index (Anserini's dense indexes:
   * the vector in "vector", the external id in "id"), each query what Anserini's
   * SearchFlatDenseVectors / SearchHnswDenseVectors run: search(new KnnFloatVectorQuery("vector",
   * q, k), depth, ANSERINI_ORDER, true), scores unrounded. The vectors come as one little-endian
   * float32 byte[] (n rows of `dim`), the results as {@link BatchSearcher#search}'s; Python maps the
   * docids with {@link BatchSearcher#externalIds()}, read once per index, instead of a stored document per hit.
   * Each query is timed as {@link BatchSearcher.Timed} says: its vector read from the batch's bytes,
   * its query made and searched.
   */
  static BatchSearcher.Timed knn(IndexReader reader, byte[] vectors, int dim, int k, int depth, int threads) throws Exception {
    java.nio.FloatBuffer all = ByteBuffer.wrap(vectors).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    int n = all.remaining() / dim;
    IndexSearcher s = new IndexSearcher(reader);
    int[][] docs = new int[n][];
    float[][] scores = new float[n][];
    return BatchSearcher.timed(n, threads, docs, scores, null, i -> {
      float[] q = new float[dim];
      all.duplicate().position(i * dim).get(q);
      ScoreDoc[] hits = s.search(new KnnFloatVectorQuery(VECTOR, q, k), depth, AnseriniOrder.ANSERINI_ORDER, true).scoreDocs;
      int[] d = new int[hits.length];
      float[] sc = new float[hits.length];
      for (int j = 0; j < hits.length; j++) {
        d[j] = hits[j].doc;
        sc[j] = hits[j].score;
      }
      docs[i] = d;
      scores[i] = sc;
    });
  }

  /** The dimension of the vectors of {@link #VECTOR} (its first segment's); 0 when no segment has any. */
  static int vectorDimension(IndexReader reader) {
    for (LeafReaderContext leaf : reader.leaves()) {
      FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(VECTOR);
      if (info != null && info.getVectorDimension() > 0) return info.getVectorDimension();
    }
    return 0;
  }
}
