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
  /** Properties left unset: the core's defaults. */
  public SnowflakeProperties() {}

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

  /**
   * The PostgreSQL a node value 'lease' is leased from (snowflake-c.node.worker=lease), as a
   * jdbc:postgresql: or postgresql:// URL; unset, the application's DataSource bean, else
   * SNOWFLAKE_LEASE_URL.
   */
  private String leaseUrl;

  /** The JSON form of @JsonSnowflakeId properties. */
  private final Json json = new Json();

  /**
   * The {@code snowflake-c.lease-url} property.
   *
   * @return the lease database's URL
   */
  public String getLeaseUrl() {
    return leaseUrl;
  }

  /**
   * Sets the {@code snowflake-c.lease-url} property.
   *
   * @param leaseUrl the lease database's URL
   */
  public void setLeaseUrl(String leaseUrl) {
    this.leaseUrl = leaseUrl;
  }

  /**
   * The {@code snowflake-c.preset} property.
   *
   * @return the preset
   */
  public String getPreset() {
    return preset;
  }

  /**
   * Sets the {@code snowflake-c.preset} property.
   *
   * @param preset the preset
   */
  public void setPreset(String preset) {
    this.preset = preset;
  }

  /**
   * The {@code snowflake-c.layout} property.
   *
   * @return the layout spec
   */
  public String getLayout() {
    return layout;
  }

  /**
   * Sets the {@code snowflake-c.layout} property.
   *
   * @param layout the layout spec
   */
  public void setLayout(String layout) {
    this.layout = layout;
  }

  /**
   * The {@code snowflake-c.epoch} property.
   *
   * @return the layout's epoch
   */
  public String getEpoch() {
    return epoch;
  }

  /**
   * Sets the {@code snowflake-c.epoch} property.
   *
   * @param epoch the layout's epoch
   */
  public void setEpoch(String epoch) {
    this.epoch = epoch;
  }

  /**
   * The {@code snowflake-c.node} property.
   *
   * @return the node field values by name
   */
  public Map<String, String> getNode() {
    return node;
  }

  /**
   * Sets the {@code snowflake-c.node} property.
   *
   * @param node the node field values by name
   */
  public void setNode(Map<String, String> node) {
    this.node = node;
  }

  /**
   * The {@code snowflake-c.id-generator-name} property.
   *
   * @return the name of the @SnowflakeId generator
   */
  public String getIdGeneratorName() {
    return idGeneratorName;
  }

  /**
   * Sets the {@code snowflake-c.id-generator-name} property.
   *
   * @param idGeneratorName the name of the @SnowflakeId generator
   */
  public void setIdGeneratorName(String idGeneratorName) {
    this.idGeneratorName = idGeneratorName;
  }

  /**
   * The {@code snowflake-c.json.*} properties.
   *
   * @return them
   */
  public Json getJson() {
    return json;
  }

  /** The {@code snowflake-c.json.*} properties. */
  public static class Json {
    /** The defaults: decimal IDs. */
    public Json() {}

    /** The string form of IDs in JSON: dec, hex, base32, base36, base58 or base62. */
    private String encoding = "dec";

    /**
     * The {@code snowflake-c.json.encoding} property.
     *
     * @return the string form of IDs in JSON
     */
    public String getEncoding() {
      return encoding;
    }

    /**
     * Sets the {@code snowflake-c.json.encoding} property.
     *
     * @param encoding the string form of IDs in JSON
     */
    public void setEncoding(String encoding) {
      this.encoding = encoding;
    }
  }
}
