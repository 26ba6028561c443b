package io.snowflakec.jackson2;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.snowflakec.SnowflakeException;
import io.snowflakec.jackson.IdText;
import io.snowflakec.jackson.JsonSnowflakeId;
import java.io.IOException;

/**
 * The Jackson 2 module: {@link JsonSnowflakeId} properties are written as strings and read from
 * strings or numbers. The same as {@link io.snowflakec.jackson.SnowflakeIdModule}, for {@code
 * com.fasterxml.jackson}.
 *
 * <pre>{@code
 * ObjectMapper mapper = new ObjectMapper().registerModule(new SnowflakeIdModule());
 * }</pre>
 */
public final class SnowflakeIdModule extends SimpleModule {
  private static final long serialVersionUID = 1L;

  private final transient IdText text;

  /** Writes the decimal form. */
  public SnowflakeIdModule() {
    this(IdText.DECIMAL);
  }

  /**
   * Writes the form of an encoding (see {@link IdText#IdText(String)}).
   *
   * @param encoding the encoding's name
   */
  public SnowflakeIdModule(String encoding) {
    super("snowflake-c");
    this.text = new IdText(encoding);
  }

  @Override
  public void setupModule(SetupContext context) {
    super.setupModule(context);
    context.insertAnnotationIntrospector(new Introspector(text));
  }

  private static final class Introspector extends NopAnnotationIntrospector {
    private static final long serialVersionUID = 1L;
    private final transient IdText text;

    Introspector(IdText text) {
      this.text = text;
    }

    @Override
    public Object findSerializer(Annotated a) {
      return a.hasAnnotation(JsonSnowflakeId.class) ? new Writer(text) : null;
    }

    @Override
    public Object findDeserializer(Annotated a) {
      return a.hasAnnotation(JsonSnowflakeId.class) ? new Reader(text) : null;
    }
  }

  private static final class Writer extends JsonSerializer<Long> {
    private final IdText text;

    Writer(IdText text) {
      this.text = text;
    }

    @Override
    public void serialize(Long id, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeString(text.format(id));
    }
  }

  private static final class Reader extends JsonDeserializer<Long> {
    private final IdText text;

    Reader(IdText text) {
      this.text = text;
    }

    @Override
    public Long deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      JsonToken token = p.currentToken();
      if (token == JsonToken.VALUE_NUMBER_INT) {
        return p.getLongValue();
      }
      if (token == JsonToken.VALUE_STRING) {
        String s = p.getText();
        try {
          return text.parse(s);
        } catch (SnowflakeException e) {
          throw ctxt.weirdStringException(s, Long.class, e.getMessage());
        }
      }
      return (Long) ctxt.handleUnexpectedToken(Long.class, p);
    }
  }
}
