package harness;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * The first pass of the harness's check of a vectors collection (harness.engine.contents,
 * check_vectors): how far a JSON-lines file holds only lines of the one shape that the
 * Python check certainly accepts, so that Python parses only the lines from the first other one
 * on. It decides nothing itself: a line it does not recognise is "doubtful" and Python, which
 * names every problem, checks it and all the lines after it.
 *
 * <p>A recognised line is, in bytes (JSON's whitespace, space, tab and CR, anywhere between
 * tokens): an object of the two keys "docid" and "vector" and at most a "contents" (Anserini's
 * own samples carry one; the check ignores it), in any order, each once; the contents a JSON
 * string (valid UTF-8 as Python decodes it: no surrogates, no overlong forms; escapes as JSON
 * writes them, no control character);
 * the docid a string of 1 to 4096 printable ASCII characters other than quote and backslash (no
 * escapes, no space: an id the Python check's id rule accepts), or a JSON integer; the vector a
 * non-empty array of JSON numbers (RFC 8259's grammar: no leading zeros, no "+1", "1." or ".5"),
 * each below 10^17 in magnitude as written (digits before the point plus a positive exponent at
 * most 17), so that the sum of the squares of at most 4096 of them is far below float32's
 * largest number; no more than maxDim numbers, as many as the first recognised line's; at most
 * lineLimit bytes. Any other byte (a non-ASCII one, a BOM, a blank line, "NaN", true, nested
 * arrays, other keys) makes the line doubtful. Every recognised line is valid JSON that Python's
 * json.loads reads to {"docid": str | int, "vector": [int | float, ...]}: the grammar is a
 * subset of JSON's, and tests/test_vector_check.py compares the whole check's outcome with and
 * without this pass over generated lines.
 *
 * <p>Why Java: the Python check of a 768-number line takes 90-120 us (orjson and numpy), about a
 * quarter of what Anserini's indexer spends on it, on the core Anserini's merges and the JIT
 * share; this byte scan took about 3 ns a byte (the dense bench's 366 MB in 1.2 s, load ~2).
 */
public final class VectorLines {
  private VectorLines() {}

  /**
   * Scans {@code file}; returns {first doubtful line (1-based; 0 when there is none), the
   * recognised lines before it, their dimension (0 when none), the line of the first of them}.
   */
  public static long[] scan(String file, int lineLimit, int maxDim) throws IOException {
    long line = 0, documents = 0, firstLine = 0;
    int dim = 0;
    byte[] buf = new byte[1 << 22];
    int start = 0, end = 0;  // the unread bytes are buf[start, end)
    try (InputStream in = Files.newInputStream(Paths.get(file))) {
      boolean eof = false;
      while (true) {
        int nl = -1;
        for (int i = start; i < end; i++) {
          if (buf[i] == '\n') {
            nl = i;
            break;
          }
        }
        if (nl < 0) {
          if (eof) {
            if (start == end) {
              return new long[] {0, documents, dim, firstLine};
            }
            nl = end;  // the last line, with no line end
          } else {
            if (start > 0) {  // move the partial line to the front, then fill the rest
              System.arraycopy(buf, start, buf, 0, end - start);
              end -= start;
              start = 0;
            }
            if (end == buf.length) {
              if (buf.length > lineLimit + 1) {  // a line over the limit: Python names it
                return new long[] {line + 1, documents, dim, firstLine};
              }
              byte[] bigger = new byte[Math.min(buf.length * 2, lineLimit + 2)];
              System.arraycopy(buf, 0, bigger, 0, end);
              buf = bigger;
            }
            int n = in.read(buf, end, buf.length - end);
            if (n < 0) {
              eof = true;
            } else {
              end += n;
            }
            continue;
          }
        }
        line++;
        int d = nl - start > lineLimit ? -1 : dimension(buf, start, nl, maxDim);
        if (d <= 0 || (dim != 0 && d != dim)) {
          return new long[] {line, documents, dim, firstLine};
        }
        if (dim == 0) {
          dim = d;
          firstLine = line;
        }
        documents++;
        start = Math.min(nl + 1, end);
      }
    }
  }

  private static final byte[] DOCID = "docid".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] VECTOR = "vector".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] CONTENTS = "contents".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** The vector's dimension when b[s, e) is a recognised line, else -1. */
  static int dimension(byte[] b, int s, int e, int maxDim) {
    int p = ws(b, s, e);
    if (p >= e || b[p] != '{') return -1;
    int dim = -1;
    boolean docid = false, contents = false;
    while (true) {
      p = ws(b, p + 1, e);
      if (p >= e || b[p] != '"') return -1;
      p++;
      if (matches(b, p, e, CONTENTS) && !contents) {
        contents = true;
        p = colon(b, p + CONTENTS.length, e);
        if (p < 0 || b[p] != '"') return -1;
        p = string(b, p + 1, e);
      } else if (matches(b, p, e, DOCID) && !docid) {
        docid = true;
        p = colon(b, p + DOCID.length, e);
        if (p < 0) return -1;
        p = docidValue(b, p, e);
      } else if (matches(b, p, e, VECTOR) && dim < 0) {
        p = colon(b, p + VECTOR.length, e);
        if (p < 0 || b[p] != '[') return -1;
        dim = 0;
        p++;
        while (true) {
          p = ws(b, p, e);
          p = number(b, p, e);
          if (p < 0 || ++dim > maxDim) return -1;
          p = ws(b, p, e);
          if (p >= e) return -1;
          if (b[p] == ']') break;
          if (b[p] != ',') return -1;
          p++;
        }
        p++;
      } else {
        return -1;
      }
      if (p < 0) return -1;
      p = ws(b, p, e);
      if (p >= e) return -1;
      if (b[p] == '}') break;
      if (b[p] != ',') return -1;
    }
    return docid && dim > 0 && ws(b, p + 1, e) == e ? dim : -1;
  }

  /**
   * The end of a JSON string whose opening quote is before p, or -1: UTF-8 as Python's strict
   * decoder accepts it (no surrogate code points, no overlong forms, nothing past U+10FFFF), no
   * byte below 0x20, escapes \" \\ \/ \b \f \n \r \t and \\u with four hex digits (any
   * code unit: json.loads takes a lone surrogate escape too).
   */
  private static int string(byte[] b, int p, int e) {
    while (p < e) {
      int c = b[p] & 0xff;
      if (c == '"') return p + 1;
      if (c < 0x20) return -1;
      if (c == '\\') {
        if (p + 1 >= e) return -1;
        int x = b[p + 1];
        if (x == 'u') {
          if (p + 6 > e) return -1;
          for (int i = p + 2; i < p + 6; i++) {
            if (Character.digit(b[i], 16) < 0) return -1;
          }
          p += 6;
        } else if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' || x == 'r' || x == 't') {
          p += 2;
        } else {
          return -1;
        }
      } else if (c < 0x80) {
        p++;
      } else {
        int n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : -1;  // 0x80-0xc1: a continuation or overlong lead
        if (n < 0 || c > 0xf4 || p + n >= e) return -1;
        int lo = 0x80, hi = 0xbf;  // the second byte's range (RFC 3629's table)
        if (c == 0xe0) lo = 0xa0;
        else if (c == 0xed) hi = 0x9f;  // no surrogates
        else if (c == 0xf0) lo = 0x90;
        else if (c == 0xf4) hi = 0x8f;  // nothing past U+10FFFF
        int c1 = b[p + 1] & 0xff;
        if (c1 < lo || c1 > hi) return -1;
        for (int i = p + 2; i <= p + n; i++) {
          if ((b[i] & 0xc0) != 0x80) return -1;
        }
        p += n + 1;
      }
    }
    return -1;
  }

  private static int ws(byte[] b, int p, int e) {
    while (p < e && (b[p] == ' ' || b[p] == '\t' || b[p] == '\r')) p++;
    return p;
  }

  private static boolean matches(byte[] b, int p, int e, byte[] key) {
    if (p + key.length + 1 > e) return false;
    for (int i = 0; i < key.length; i++) {
      if (b[p + i] != key[i]) return false;
    }
    return b[p + key.length] == '"';
  }

  /** After a key's closing quote at p: the position of the value after the colon, or -1. */
  private static int colon(byte[] b, int p, int e) {
    p = ws(b, p + 1, e);
    if (p >= e || b[p] != ':') return -1;
    p = ws(b, p + 1, e);
    return p < e ? p : -1;
  }

  /** A docid string of printable ASCII (no quote, backslash or space) or a JSON integer. */
  private static int docidValue(byte[] b, int p, int e) {
    if (b[p] == '"') {
      int q = p + 1;
      while (q < e && b[q] > 0x20 && b[q] < 0x7f && b[q] != '"' && b[q] != '\\') q++;
      if (q >= e || b[q] != '"' || q == p + 1 || q - p - 1 > 4096) return -1;
      return q + 1;
    }
    int q = p;
    if (b[q] == '-') q++;
    if (q >= e || b[q] < '0' || b[q] > '9') return -1;
    if (b[q] == '0') return q + 1;
    int first = q;
    while (q < e && b[q] >= '0' && b[q] <= '9') q++;
    return q - first > 18 ? -1 : q;  // Python reads at most 4,300 digits, and an id has at most 4,096 bytes
  }

  /** The end of a JSON number at p whose magnitude is below 10^17 as written, or -1. */
  private static int number(byte[] b, int p, int e) {
    if (p < e && b[p] == '-') p++;
    if (p >= e || b[p] < '0' || b[p] > '9') return -1;
    int digits;
    if (b[p] == '0') {
      p++;
      digits = 1;
    } else {
      int q = p;
      while (p < e && b[p] >= '0' && b[p] <= '9') p++;
      digits = p - q;
    }
    if (p < e && b[p] == '.') {
      p++;
      int q = p;
      while (p < e && b[p] >= '0' && b[p] <= '9') p++;
      if (p == q) return -1;
    }
    if (p < e && (b[p] == 'e' || b[p] == 'E')) {
      p++;
      boolean negative = false;
      if (p < e && (b[p] == '+' || b[p] == '-')) negative = b[p++] == '-';
      int q = p, exponent = 0;
      while (p < e && b[p] >= '0' && b[p] <= '9') {
        if (p - q < 4) exponent = exponent * 10 + (b[p] - '0');
        p++;
      }
      if (p == q) return -1;
      if (!negative && (p - q >= 4 || digits + exponent > 17)) return -1;
    }
    return digits > 17 ? -1 : p;
  }
}
