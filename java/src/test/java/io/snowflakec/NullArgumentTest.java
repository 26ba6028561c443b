package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every public method of {@link Generator.Builder} and every public static method of {@link
 * Snowflake} refuses a null object argument with an {@link InvalidArgumentException} that names it
 * and says what to give — never a NullPointerException — found by reflection, so that a method
 * added later is walked too. The builder's option setters take null as the option's default, as
 * {@link Generator.Builder#option(String, Object)} documents.
 */
class NullArgumentTest {
  /**
   * Builder methods whose argument null restores the option's default: name#index, or
   * name(Type)#index where an overload differs.
   */
  private static final Set<String> NULL_IS_DEFAULT =
      Set.of(
          "option#1",
          "rollback#0",
          "maxWait#0",
          "maxDrift#0",
          "timeSource#0",
          "stateDir#0",
          "stateReserve#0",
          "leaseDuration#0",
          "leaseKey#0",
          "lease(String)#0");

  private static Object sample(Class<?> type) {
    if (type == long.class) {
      return 1L;
    }
    if (type == int.class) {
      return 1;
    }
    if (type == boolean.class) {
      return true;
    }
    if (type == String.class || type == Object.class) {
      return "1";
    }
    if (type == Layout.class) {
      return Layout.preset("twitter");
    }
    if (type == Duration.class) {
      return Duration.ofMillis(5);
    }
    if (type == Path.class) {
      return Path.of("state");
    }
    if (type == TimeSource.class) {
      return TimeSource.values()[0];
    }
    if (type == Instant.class) {
      return Instant.EPOCH;
    }
    if (type == UUID.class) {
      return UUID.fromString("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    }
    if (type == javax.sql.DataSource.class) {
      return new org.postgresql.ds.PGSimpleDataSource();
    }
    if (type == Map.class) {
      return Map.of("datacenter", 1L, "worker", 1L, "seq", 0L);
    }
    throw new AssertionError("no sample of " + type + ": add one");
  }

  private static Throwable call(Method m, Object target, Object[] args) {
    try {
      m.invoke(target, args);
      return null;
    } catch (InvocationTargetException e) {
      return e.getCause();
    } catch (IllegalAccessException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void builderMethodsRefuseNull() {
    int checked = 0;
    for (Method m : Generator.Builder.class.getDeclaredMethods()) {
      if (!Modifier.isPublic(m.getModifiers()) || Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      Class<?>[] types = m.getParameterTypes();
      for (int i = 0; i < types.length; i++) {
        if (types[i].isPrimitive()) {
          continue;
        }
        Object[] args = Arrays.stream(types).map(NullArgumentTest::sample).toArray();
        args[i] = null;
        Throwable t = call(m, Generator.builder(), args);
        String where = m + ", argument " + i + " null";
        if (NULL_IS_DEFAULT.contains(m.getName() + "#" + i)
            || NULL_IS_DEFAULT.contains(m.getName() + "(" + types[i].getSimpleName() + ")#" + i)) {
          assertEquals(null, t, where + ": null restores the default");
        } else {
          assertInstanceOf(InvalidArgumentException.class, t, where);
          assertTrue(
              t.getMessage().contains("given to Generator.Builder." + m.getName() + " is null: "),
              where + ": " + t.getMessage());
        }
        checked++;
      }
    }
    assertTrue(checked >= 15, "the builder's object arguments: " + checked);
  }

  /** Valid arguments of each static method, and the names its message gives them. */
  private static final Map<String, List<String>> STATIC_NAMES = new HashMap<>();

  static {
    STATIC_NAMES.put("decode(long,Layout)", List.of("id", "layout"));
    STATIC_NAMES.put("decode(String,Layout)", List.of("id", "layout"));
    STATIC_NAMES.put("decode(String,String,Layout)", List.of("id", "encoding", "layout"));
    STATIC_NAMES.put("format(long,String)", List.of("id", "encoding"));
    STATIC_NAMES.put("format(long,String,boolean)", List.of("id", "encoding", "pad"));
    STATIC_NAMES.put("parse(String,String)", List.of("text", "encoding"));
    STATIC_NAMES.put("decodeUuid7(String)", List.of("text"));
    STATIC_NAMES.put("decodeUuid7(UUID)", List.of("uuid"));
    STATIC_NAMES.put("parseId(String)", List.of("text"));
    STATIC_NAMES.put("encode(Layout,long,Map)", List.of("layout", "timeMs", "fields"));
    STATIC_NAMES.put("encode(Layout,Instant,Map)", List.of("layout", "time", "fields"));
    STATIC_NAMES.put("range(Layout,long,long)", List.of("layout", "t0Ms", "t1Ms"));
    STATIC_NAMES.put("range(Layout,Instant,Instant)", List.of("layout", "t0", "t1"));
  }

  private static Object staticSample(String name, Class<?> type) {
    return name.equals("encoding") ? "dec" : sample(type);
  }

  @Test
  void staticMethodsRefuseNull() {
    List<String> unknown = new ArrayList<>();
    int checked = 0;
    for (Method m : Snowflake.class.getDeclaredMethods()) {
      int mod = m.getModifiers();
      Class<?>[] types = m.getParameterTypes();
      if (!Modifier.isPublic(mod)
          || !Modifier.isStatic(mod)
          || Arrays.stream(types).allMatch(Class::isPrimitive)) {
        continue;
      }
      String signature =
          m.getName()
              + "("
              + String.join(
                  ",", Arrays.stream(types).map(Class::getSimpleName).toArray(String[]::new))
              + ")";
      List<String> names = STATIC_NAMES.get(signature);
      if (names == null) {
        unknown.add(signature);
        continue;
      }
      for (int i = 0; i < types.length; i++) {
        if (types[i].isPrimitive()) {
          continue;
        }
        Object[] args = new Object[types.length];
        for (int j = 0; j < types.length; j++) {
          args[j] = staticSample(names.get(j), types[j]);
        }
        args[i] = null;
        Throwable t = call(m, null, args);
        String where = signature + ", " + names.get(i) + " null";
        assertInstanceOf(InvalidArgumentException.class, t, where);
        String message = t.getMessage();
        boolean named =
            names.get(i).equals("layout")
                ? message.startsWith("no layout given")
                : message.startsWith("The " + names.get(i) + " given to Snowflake.")
                    && message.contains(" is null: ");
        assertTrue(named, where + ": " + message);
        checked++;
      }
    }
    if (!unknown.isEmpty()) {
      fail("public static methods with object arguments not in STATIC_NAMES: " + unknown);
    }
    assertTrue(checked >= 15, "the static methods' object arguments: " + checked);
  }
}
