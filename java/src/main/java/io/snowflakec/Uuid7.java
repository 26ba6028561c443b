package io.snowflakec;

import java.time.Instant;
import java.util.List;

/**
 * A UUIDv7 (RFC 9562) split into its time and random bits by the core. Made by {@link
 * Snowflake#decodeUuid7(String)}.
 *
 * <pre>{@code
 * Uuid7 u = Snowflake.decodeUuid7("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
 * u.unixMs();          // 1645557742000
 * u.time();            // 2022-02-22T19:22:22Z
 * u.randA();           // 3267
 * u.toJson();          // {"uuid":"017f22e2-79b0-7cc3-98c4-dc0c0c07398f","version":7,...}
 * }</pre>
 */
public final class Uuid7 {
  private final String uuid;
  private final String json;
  private final long unixMs;
  private final int randA;
  private final long randB;

  Uuid7(List<?> decoded) { // [uuid, unixMs, randA, randB, json]
    this.uuid = (String) decoded.get(0);
    this.unixMs = (Long) decoded.get(1);
    this.randA = ((Long) decoded.get(2)).intValue();
    this.randB = (Long) decoded.get(3);
    this.json = (String) decoded.get(4);
  }

  /**
   * The canonical text.
   *
   * @return 8-4-4-4-12 hex digits, lowercase
   */
  public String uuid() {
    return uuid;
  }

  /**
   * The UUID's 48-bit time.
   *
   * @return Unix ms
   */
  public long unixMs() {
    return unixMs;
  }

  /**
   * The time as an instant.
   *
   * @return {@link #unixMs()} as an {@link Instant}
   */
  public Instant time() {
    return Instant.ofEpochMilli(unixMs);
  }

  /**
   * The 12 bits of rand_a.
   *
   * @return 0 to 4095
   */
  public int randA() {
    return randA;
  }

  /**
   * The 62 bits of rand_b.
   *
   * @return 0 to 2^62 - 1
   */
  public long randB() {
    return randB;
  }

  /**
   * The canonical JSON line, byte for byte the CLI's {@code decode --from uuid7 --json} and every
   * other binding's.
   *
   * @return {@code {"uuid":"…","version":7,"time_ms":…,"time":"…","rand_a":…,"rand_b":"…"}}
   */
  public String toJson() {
    return json;
  }

  /** Equal when they hold the same UUID. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Uuid7 other && uuid.equals(other.uuid);
  }

  @Override
  public int hashCode() {
    return uuid.hashCode();
  }

  /** The canonical text. */
  @Override
  public String toString() {
    return uuid;
  }
}
