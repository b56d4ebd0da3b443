package harness;

import io.anserini.collection.DocumentCollection;
import io.anserini.collection.FileSegment;
import io.anserini.collection.SourceDocument;
import io.anserini.index.IndexCollection;
import io.anserini.index.generator.EmptyDocumentException;
import io.anserini.index.generator.LuceneDocumentGenerator;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Which documents IndexCollection counted as empty (its counter {@code empty}): it counts them and
 * names none. The harness asks only after a build whose counter is not 0 (harness.engine.index), and
 * reads the collection as IndexCollection did: the same collection class over the same folder,
 * segment by segment in {@code getSegmentPaths()} order, documents in file order, skipping those
 * that are not {@code indexable()} as it does, and the same generator class built from the same
 * Args; a document is empty when the generator's {@code createDocument} throws
 * {@link EmptyDocumentException} (DefaultLuceneDocumentGenerator: contents blank after Java's
 * {@code trim()}), exactly where AbstractIndexer's thread increments {@code empty}. Nothing is
 * written; the scan stops at the {@code limit}-th empty document.
 */
public final class EmptyDocs {
  private EmptyDocs() {}

  /** The ids of the first {@code limit} empty documents of the collection at {@code input}. */
  @SuppressWarnings("unchecked")
  public static String[] find(String collectionClass, String input, IndexCollection.Args args, int limit)
      throws Exception {
    Class<?> cls = Class.forName("io.anserini.collection." + collectionClass);
    DocumentCollection<? extends SourceDocument> collection =
        (DocumentCollection<? extends SourceDocument>) cls.getConstructor(Path.class).newInstance(Paths.get(input));
    String name = args.generatorClass.contains(".") ? args.generatorClass : "io.anserini.index.generator." + args.generatorClass;
    LuceneDocumentGenerator<SourceDocument> generator = (LuceneDocumentGenerator<SourceDocument>)
        Class.forName(name).getDeclaredConstructor(IndexCollection.Args.class).newInstance(args);
    List<String> ids = new ArrayList<>();
    for (Path segmentPath : collection.getSegmentPaths()) {
      try (FileSegment<? extends SourceDocument> segment = collection.createFileSegment(segmentPath)) {
        for (SourceDocument d : segment) {
          if (!d.indexable()) {
            continue;
          }
          try {
            generator.createDocument(d);
          } catch (EmptyDocumentException e) {
            ids.add(d.id());
            if (ids.size() >= limit) {
              return ids.toArray(new String[0]);
            }
          } catch (Exception e) {
            // skipped or invalid: IndexCollection counts those apart
          }
        }
      }
    }
    return ids.toArray(new String[0]);
  }
}
