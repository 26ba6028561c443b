package io.snowflakec;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The records of the logger {@code io.snowflakec} while an action runs. */
final class LogCapture {
  private LogCapture() {}

  /** An action of a test: it may throw what the test lets through. */
  interface Action {
    void run() throws Throwable;
  }

  static List<LogRecord> logged(Action action) throws Throwable {
    // Held here: java.util.logging keeps its loggers only weakly.
    Logger logger = Logger.getLogger(Generator.LOGGER);
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(capture);
    try {
      action.run();
    } finally {
      logger.removeHandler(capture);
    }
    return records;
  }
}
