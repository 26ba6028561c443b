package io.snowflakec.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code snowflake-c.*} properties of the layout, the node values and the integrations. The
 * core's options ({@code snowflake-c.rollback}, {@code snowflake-c.max-wait}, …) are read by {@link
 * SnowflakeAutoConfiguration} from the core's table, one property per option, so that every option
 * reaches Spring under its one name. Unset properties keep the core's defaults; the core checks
 * every value at start-up.
 */
@ConfigurationProperties("snowflake-c")
public class SnowflakeProperties {
  /** A preset: default, twitter, discord, sonyflake, baidu, instagram, jssafe. */
  private String preset;

  /** A layout spec, for example time:41@1ms,worker:10,seq:12 (instead of a preset). */
  private String layout;

  /** The epoch of the layout: Unix milliseconds or an ISO-8601 UTC instant. */
  private String epoch;

  /**
   * Node field values by name, each a number, auto (the host's pool, with state-dir), host (the
   * ordinal ending the host name) or env:NAME (the number in an environment variable).
   */
  private Map<String, String> node = new LinkedHashMap<>();

  /**
   * The name under which @SnowflakeId(generator = ...) finds the bean; empty (the default) for
   * plain @SnowflakeId.
   */
  private String idGeneratorName = "";

  /** The JSON form of @JsonSnowflakeId properties. */
  private final Json json = new Json();

  public String getPreset() {
    return preset;
  }

  public void setPreset(String preset) {
    this.preset = preset;
  }

  public String getLayout() {
    return layout;
  }

  public void setLayout(String layout) {
    this.layout = layout;
  }

  public String getEpoch() {
    return epoch;
  }

  public void setEpoch(String epoch) {
    this.epoch = epoch;
  }

  public Map<String, String> getNode() {
    return node;
  }

  public void setNode(Map<String, String> node) {
    this.node = node;
  }

  public String getIdGeneratorName() {
    return idGeneratorName;
  }

  public void setIdGeneratorName(String idGeneratorName) {
    this.idGeneratorName = idGeneratorName;
  }

  public Json getJson() {
    return json;
  }

  /** The {@code snowflake-c.json.*} properties. */
  public static class Json {
    /** The string form of IDs in JSON: dec, hex, base32, base36, base58 or base62. */
    private String encoding = "dec";

    public String getEncoding() {
      return encoding;
    }

    public void setEncoding(String encoding) {
      this.encoding = encoding;
    }
  }
}
