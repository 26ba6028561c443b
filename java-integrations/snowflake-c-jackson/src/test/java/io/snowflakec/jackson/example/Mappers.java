package io.snowflakec.jackson.example;

public final class Mappers {
  private Mappers() {}

  /** Jackson 3: IDs as decimal strings. */
  public static tools.jackson.databind.json.JsonMapper jackson3() {
    return tools.jackson.databind.json.JsonMapper.builder()
        .addModule(new io.snowflakec.jackson.SnowflakeIdModule())
        .build();
  }

  /** Jackson 2: IDs as base62 strings (11 characters, sorting as the IDs do). */
  public static com.fasterxml.jackson.databind.ObjectMapper jackson2Base62() {
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .registerModule(new io.snowflakec.jackson2.SnowflakeIdModule("base62"));
  }
}
