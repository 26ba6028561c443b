package io.snowflakec.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a writing process did: the node value its generator held and the keys of the rows it
 * inserted. A text file: the node value on the first line, then a key a line.
 *
 * @param node the node value
 * @param keys the keys inserted
 */
public record WriterReport(long node, List<Long> keys) {
  /**
   * Writes the report.
   *
   * @param file where
   * @throws IOException when it cannot
   */
  public void write(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(Long.toString(node));
    for (long key : keys) {
      lines.add(Long.toString(key));
    }
    Files.write(file, lines);
  }

  /**
   * Reads a report written by {@link #write(Path)}.
   *
   * @param file the report
   * @return what it says
   * @throws IOException when it cannot be read
   */
  public static WriterReport read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<Long> keys = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      keys.add(Long.parseLong(line));
    }
    return new WriterReport(Long.parseLong(lines.get(0)), keys);
  }
}
