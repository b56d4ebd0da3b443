package harness;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A searched run's TREC text, written in Java from the packed results of {@link
 * BatchSearcher#search} (per query the hit count, then every hit's Lucene docid, then every
 * float32 score): the bytes harness.formats.runs.write_run writes for the same run, "qid Q0 docid
 * rank score tag\n" per hit, ranks 1..n per query, queries without hits left out, and each score
 * as Python's repr() of the float64 that harness.engine.search.strictly_decreasing makes of it (the
 * j-th repeat of a score lowered by j ulps). write_run's own path formats with Arrow and numpy on
 * the driver (1.3 s of CPU for 2M hits on the project's 2-core machine); this one takes a fraction
 * of that, beside the explorer and the evaluation.
 *
 * <p>It formats only what it is sure of and declines (returns -1, having written nothing that is
 * kept) everything else, which Python then writes or refuses with its own messages: a score that
 * is NaN, infinite or subnormal (Java's shortest digits can differ from repr's there), scores that
 * the tie adjustment would not leave strictly decreasing (strictly_decreasing's fallback), an id
 * that is empty, longer than 1,024 bytes or holds a byte a run cannot hold, and packed results
 * that do not match the query ids given. tests/test_run_text.py compares both paths.
 */
public final class RunText {
  static final int MAX_ID = 1024; // harness.formats.tokenizer.MAX_ID

  private RunText() {}

  /**
   * Writes the run to {@code path} (created or truncated); returns the bytes written, or -1 when
   * it declines (see the class comment). {@code ids}: {@link BatchSearcher#externalIds()}'s bytes
   * (each id followed by '\n', in Lucene docid order); {@code qids}: every query's id in the
   * batch's order, each followed by '\n'; {@code tag}: the run tag's bytes.
   */
  public static long write(String path, byte[] packed, byte[] ids, byte[] qids, byte[] tag) throws IOException {
    int[] idStart = lineStarts(ids);
    int[] qStart = lineStarts(qids);
    if (idStart == null || qStart == null) return -1;
    int n = qStart.length - 1;
    ByteBuffer b = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
    if (packed.length < 4L * n) return -1;
    long total = 0;
    for (int i = 0; i < n; i++) total += b.getInt(4 * i);
    if (packed.length != 4L * n + 8L * total) return -1;
    int maxDoc = idStart.length - 1;
    for (int d = 0; d < maxDoc; d++) if (!clean(ids, idStart[d], idStart[d + 1] - 1)) return -1;
    for (int i = 0; i < n; i++) if (b.getInt(4 * i) > 0 && !clean(qids, qStart[i], qStart[i + 1] - 1)) return -1;
    if (!clean(tag, 0, tag.length)) return -1;

    byte[] line = new byte[2 * MAX_ID + tag.length + 64];
    long written = 0;
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(path), 1 << 20)) {
      int hit = 0;
      int docBase = 4 * n;
      long scoreBase = 4L * n + 4L * total;
      for (int i = 0; i < n; i++) {
        int count = b.getInt(4 * i);
        double previous = 0;
        float previousRaw = 0;
        int repeat = 0;
        for (int r = 0; r < count; r++, hit++) {
          int doc = b.getInt(docBase + 4 * hit);
          float raw = b.getFloat((int) (scoreBase + 4L * hit));
          if (doc < 0 || doc >= maxDoc) return -1;
          double s = raw;
          repeat = r > 0 && raw == previousRaw ? repeat + 1 : 0;
          double v = s - repeat * Math.ulp(s);
          if (!Double.isFinite(v) || (v != 0 && Math.abs(v) < Double.MIN_NORMAL)) return -1;
          if (r > 0 && !(v < previous)) return -1;
          previous = v;
          previousRaw = raw;
          int p = 0;
          p = put(line, p, qids, qStart[i], qStart[i + 1] - 1);
          line[p++] = ' ';
          line[p++] = 'Q';
          line[p++] = '0';
          line[p++] = ' ';
          p = put(line, p, ids, idStart[doc], idStart[doc + 1] - 1);
          line[p++] = ' ';
          p = putInt(line, p, r + 1);
          line[p++] = ' ';
          p = repr(v, line, p);
          line[p++] = ' ';
          p = put(line, p, tag, 0, tag.length);
          line[p++] = '\n';
          out.write(line, 0, p);
          written += p;
        }
      }
    }
    return written;
  }

  /** Python's repr() of each value, one per line (for the tests' comparison with Python). */
  public static String reprs(double[] values) {
    StringBuilder sb = new StringBuilder();
    byte[] buf = new byte[40];
    for (double v : values) {
      if (!Double.isFinite(v) || (v != 0 && Math.abs(v) < Double.MIN_NORMAL)) {
        sb.append("-\n"); // declined: write_run formats these itself
        continue;
      }
      int p = repr(v, buf, 0);
      sb.append(new String(buf, 0, p, java.nio.charset.StandardCharsets.US_ASCII)).append('\n');
    }
    return sb.toString();
  }

  /**
   * Python's repr() of a finite, normal or zero double, written at {@code buf[p]}; returns the
   * end. Java's Double.toString (JDK 19 and later) gives the shortest decimal that reads back to
   * the value, the closest one when there are several, as repr does (for normal doubles; the two
   * may differ below Double.MIN_NORMAL, which is declined); only the layout differs, and repr's is
   * rebuilt from its digits: plain when the decimal point is within 16 digits before and 4
   * after, "1.5e-05" / "1e+16" otherwise.
   */
  static int repr(double v, byte[] buf, int p) {
    if (v == 0) {
      if (Double.doubleToRawLongBits(v) != 0) buf[p++] = '-';
      buf[p++] = '0';
      buf[p++] = '.';
      buf[p++] = '0';
      return p;
    }
    String s = Double.toString(v);
    int start = 0;
    if (s.charAt(0) == '-') {
      buf[p++] = '-';
      start = 1;
    }
    int e = s.indexOf('E');
    int end = e < 0 ? s.length() : e;
    byte[] digits = new byte[24];
    int nd = 0;
    int decpt = 0; // the value is 0.d1d2...dn x 10^decpt
    boolean afterDot = false;
    for (int k = start; k < end; k++) {
      char c = s.charAt(k);
      if (c == '.') {
        afterDot = true;
      } else if (nd == 0 && c == '0') {
        if (afterDot) decpt--;
      } else {
        digits[nd++] = (byte) c;
        if (!afterDot) decpt++;
      }
    }
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    if (e >= 0) decpt += Integer.parseInt(s, e + 1, s.length(), 10);
    if (decpt > -4 && decpt <= 16) {
      if (decpt <= 0) {
        buf[p++] = '0';
        buf[p++] = '.';
        for (int k = 0; k < -decpt; k++) buf[p++] = '0';
        for (int k = 0; k < nd; k++) buf[p++] = digits[k];
      } else if (decpt >= nd) {
        for (int k = 0; k < nd; k++) buf[p++] = digits[k];
        for (int k = nd; k < decpt; k++) buf[p++] = '0';
        buf[p++] = '.';
        buf[p++] = '0';
      } else {
        for (int k = 0; k < decpt; k++) buf[p++] = digits[k];
        buf[p++] = '.';
        for (int k = decpt; k < nd; k++) buf[p++] = digits[k];
      }
      return p;
    }
    buf[p++] = digits[0];
    if (nd > 1) {
      buf[p++] = '.';
      for (int k = 1; k < nd; k++) buf[p++] = digits[k];
    }
    buf[p++] = 'e';
    int x = decpt - 1;
    buf[p++] = (byte) (x < 0 ? '-' : '+');
    x = Math.abs(x);
    if (x < 10) buf[p++] = '0';
    return putInt(buf, p, x);
  }

  /** Where each '\n'-terminated line of {@code text} starts, and one past the last; null when
   * the text does not end with '\n' (and is not empty). */
  static int[] lineStarts(byte[] text) {
    int lines = 0;
    for (byte c : text) if (c == '\n') lines++;
    if (text.length > 0 && text[text.length - 1] != '\n') return null;
    int[] starts = new int[lines + 1];
    int k = 1;
    for (int i = 0; i < text.length; i++) if (text[i] == '\n') starts[k++] = i + 1;
    return starts;
  }

  /** 1 to MAX_ID bytes, none of them a space, a control character or DEL (write_run's rule). */
  static boolean clean(byte[] text, int from, int to) {
    int len = to - from;
    if (len < 1 || len > MAX_ID) return false;
    for (int i = from; i < to; i++) {
      int c = text[i] & 0xff;
      if (c <= 32 || c == 127) return false;
    }
    return true;
  }

  static int put(byte[] buf, int p, byte[] src, int from, int to) {
    System.arraycopy(src, from, buf, p, to - from);
    return p + to - from;
  }

  static int putInt(byte[] buf, int p, int x) {
    if (x >= 10) p = putInt(buf, p, x / 10);
    buf[p++] = (byte) ('0' + x % 10);
    return p;
  }
}
