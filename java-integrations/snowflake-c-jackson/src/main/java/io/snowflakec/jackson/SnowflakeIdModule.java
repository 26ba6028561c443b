package io.snowflakec.jackson;

import io.snowflakec.SnowflakeException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;
import tools.jackson.databind.module.SimpleModule;

/**
 * The Jackson 3 module: {@link JsonSnowflakeId} properties are written as strings and read from
 * strings or numbers.
 *
 * <pre>{@code
 * JsonMapper mapper = JsonMapper.builder().addModule(new SnowflakeIdModule()).build();
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
    public Object findSerializer(MapperConfig<?> config, Annotated a) {
      return a.hasAnnotation(JsonSnowflakeId.class) ? new Writer(text) : null;
    }

    @Override
    public Object findDeserializer(MapperConfig<?> config, Annotated a) {
      return a.hasAnnotation(JsonSnowflakeId.class) ? new Reader(text) : null;
    }
  }

  private static final class Writer extends ValueSerializer<Long> {
    private final IdText text;

    Writer(IdText text) {
      this.text = text;
    }

    @Override
    public void serialize(Long id, JsonGenerator gen, SerializationContext ctxt) {
      gen.writeString(text.format(id));
    }
  }

  private static final class Reader extends ValueDeserializer<Long> {
    private final IdText text;

    Reader(IdText text) {
      this.text = text;
    }

    @Override
    public Long deserialize(JsonParser p, DeserializationContext ctxt) {
      JsonToken token = p.currentToken();
      if (token == JsonToken.VALUE_NUMBER_INT) {
        return p.getLongValue();
      }
      if (token == JsonToken.VALUE_STRING) {
        String s = p.getString();
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
