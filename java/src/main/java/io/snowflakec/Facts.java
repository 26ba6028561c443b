package io.snowflakec;

import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The core's tables in Java terms: the names of their rows, read once, and the maps and lists the
 * natives walk out (layout description, stats) as ordered, unmodifiable Java values.
 */
final class Facts {
  /** Options, in the core's words (snake_case). */
  static final List<String> OPTIONS = names(Native.TABLE_OPTIONS);

  /** Error kinds by status number; null for a status that is no error. */
  static final List<String> STATUSES = names(Native.TABLE_STATUSES);

  /** The stats a monitoring system reads as counters, and as gauges. */
  static final List<String> COUNTERS = named(Native.TABLE_COUNTERS);

  static final List<String> GAUGES = named(Native.TABLE_GAUGES);

  /** The charset of file names: paths go to the core, and come back, in it. */
  static final Charset NATIVE_CHARSET = nativeCharset();

  private Facts() {}

  private static List<String> names(int table) {
    return Collections.unmodifiableList(Arrays.asList(Native.tableNames(table)));
  }

  private static List<String> named(int table) {
    return Arrays.stream(Native.tableNames(table)).filter(n -> n != null).toList();
  }

  /**
   * A map the natives walked out (see {@link Native#stats}) as Java values.
   *
   * @param walked a map of the natives
   * @return an ordered, unmodifiable map
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object walked) {
    return (Map<String, Object>) value(walked);
  }

  /**
   * A value from the natives as a Java value: text (the platform's bytes) as a String, lists and
   * maps unmodifiable, in order.
   */
  static Object value(Object v) {
    if (v instanceof byte[] text) {
      return new String(text, NATIVE_CHARSET);
    }
    if (v instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (Object item : list) {
        out.add(value(item));
      }
      return Collections.unmodifiableList(out);
    }
    if (v instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, item) -> out.put((String) k, value(item)));
      return Collections.unmodifiableMap(out);
    }
    return v;
  }

  /**
   * A name of the core's tables ({@code max_wait}) in Java's casing ({@code maxWait}).
   *
   * @param name words joined by {@code _}
   * @return camelCase
   */
  static String camelCase(String name) {
    StringBuilder out = new StringBuilder(name.length());
    boolean upper = false;
    for (char c : name.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  private static Charset nativeCharset() {
    String name = System.getProperty("sun.jnu.encoding");
    try {
      return name != null ? Charset.forName(name) : Charset.defaultCharset();
    } catch (RuntimeException e) {
      return Charset.defaultCharset();
    }
  }
}
