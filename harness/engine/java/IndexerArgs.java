package harness;

/** Anserini's indexer options (IndexCollection.Args) set from Python where pyjnius cannot. */
public final class IndexerArgs {
  private IndexerArgs() {}

  /**
   * Sets an indexer's String[] option (IndexCollection.Args.fields, `-fields title`): pyjnius
   * cannot assign a Java array to a field, but passes a list as a String[] argument.
   */
  public static void setStrings(Object args, String name, String[] values) throws Exception {
    args.getClass().getField(name).set(args, values);
  }
}
