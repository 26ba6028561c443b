package io.snowflakec;

import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The core's tables in Java terms: the names of their rows, read once, and the values the natives
 * return zipped with them into ordered, unmodifiable maps (layout description, stats).
 */
final class Facts {
  /** Options, in the core's words (snake_case). */
  static final List<String> OPTIONS = names(Native.TABLE_OPTIONS);

  /** Error kinds by status number; null for a status that is no error. */
  static final List<String> STATUSES = names(Native.TABLE_STATUSES);

  static final List<String> LAYOUT = names(Native.TABLE_LAYOUT);
  static final List<String> FIELDS = names(Native.TABLE_FIELDS);
  static final List<String> STATS = names(Native.TABLE_STATS);

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
   * The values of a table's rows under their names.
   *
   * @param names the table's names
   * @param values the natives' values, in the same order
   * @return an ordered, unmodifiable map
   */
  static Map<String, Object> map(List<String> names, Object[] values) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      out.put(names.get(i), value(values[i]));
    }
    return Collections.unmodifiableMap(out);
  }

  /** A value from the natives as a Java value (see {@link Native}). */
  private static Object value(Object v) {
    if (v instanceof byte[] text) {
      return new String(text, NATIVE_CHARSET);
    }
    if (v instanceof Object[][] rows) {
      List<Map<String, Object>> list = new ArrayList<>(rows.length);
      for (Object[] row : rows) {
        list.add(map(FIELDS, row));
      }
      return Collections.unmodifiableList(list);
    }
    if (v instanceof Object[] pair) {
      String[] keys = (String[]) pair[0];
      Object[] values = (Object[]) pair[1];
      Map<String, Object> out = new LinkedHashMap<>();
      for (int i = 0; i < keys.length; i++) {
        out.put(keys[i], value(values[i]));
      }
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
