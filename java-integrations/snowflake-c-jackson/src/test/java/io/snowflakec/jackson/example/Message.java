package io.snowflakec.jackson.example;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.snowflakec.jackson.JsonSnowflakeId;

@JsonPropertyOrder({"id", "replyTo", "likes", "text"})
public class Message {
  @JsonSnowflakeId public long id;
  @JsonSnowflakeId public Long replyTo;
  public long likes;
  public String text;
}
