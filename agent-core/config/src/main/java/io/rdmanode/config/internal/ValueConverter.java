// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one HOCON value into the Java type a component's MetaType declares. Durations ({@code 5s}) become
 * milliseconds and sizes ({@code 64MiB}) bytes where an integer is expected, so components only ever see
 * {@code long} milliseconds and bytes. Lists become arrays of the boxed type, which DS converts to the
 * component's {@code String[]}/{@code long[]} members.
 */
final class ValueConverter {

    /** Thrown with a message that completes "KEY: ..." for the operator. */
    static final class ConversionException extends Exception {
        private static final long serialVersionUID = 1L;

        ConversionException(String message) {
            super(message);
        }
    }

    private ValueConverter() {
    }

    static Object convert(AttributeSchema schema, ConfigValue value) throws ConversionException {
        if (!schema.isList()) {
            if (value.valueType() == ConfigValueType.LIST) {
                throw new ConversionException("expected " + schema.type().describe() + ", found a list");
            }
            return checked(schema, scalar(schema.type(), value));
        }
        if (value.valueType() != ConfigValueType.LIST) {
            throw new ConversionException("expected a list of " + plural(schema.type()) + ", e.g. [a, b], found "
                    + describe(value));
        }
        ConfigList list = (ConfigList) value;
        List<Object> items = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            try {
                items.add(checked(schema, scalar(schema.type(), list.get(i))));
            } catch (ConversionException e) {
                throw new ConversionException("element " + i + ": " + e.getMessage());
            }
        }
        Object array = Array.newInstance(boxed(schema.type()), items.size());
        for (int i = 0; i < items.size(); i++) {
            Array.set(array, i, items.get(i));
        }
        return array;
    }

    private static Object checked(AttributeSchema schema, Object converted) throws ConversionException {
        String text = String.valueOf(converted);
        if (!schema.options().isEmpty() && !schema.options().contains(text)) {
            throw new ConversionException("'" + text + "' is not one of " + schema.options());
        }
        var invalid = schema.validate(text);
        if (invalid.isPresent()) {
            // Felix MetaType answers with message keys ("%greater than maximum"); for a String the bound is
            // its length, which the message then has to say.
            String why = invalid.get().startsWith("%") ? invalid.get().substring(1) : invalid.get();
            boolean above = why.contains("greater than maximum");
            boolean below = why.contains("less than minimum");
            if (above || below) {
                throw new ConversionException(text + " is not allowed: " + Limits.describe(schema, text, above));
            }
            throw new ConversionException(text + " is not allowed: " + why);
        }
        return converted;
    }

    private static Object scalar(AttributeType type, ConfigValue value) throws ConversionException {
        if (value.valueType() == ConfigValueType.OBJECT || value.valueType() == ConfigValueType.LIST
                || value.valueType() == ConfigValueType.NULL) {
            throw new ConversionException("expected " + type.describe() + ", found " + describe(value));
        }
        Object raw = value.unwrapped();
        return switch (type) {
            case STRING, PASSWORD -> String.valueOf(raw);
            case CHARACTER -> character(raw);
            case BOOLEAN -> bool(value);
            case DOUBLE -> decimal(raw, type);
            case FLOAT -> (float) decimal(raw, type);
            case LONG -> integral(value, Long.MIN_VALUE, Long.MAX_VALUE, type);
            case INTEGER -> (int) integral(value, Integer.MIN_VALUE, Integer.MAX_VALUE, type);
            case SHORT -> (short) integral(value, Short.MIN_VALUE, Short.MAX_VALUE, type);
            case BYTE -> (byte) integral(value, Byte.MIN_VALUE, Byte.MAX_VALUE, type);
        };
    }

    private static long integral(ConfigValue value, long min, long max, AttributeType type)
            throws ConversionException {
        Object raw = value.unwrapped();
        long result;
        if (raw instanceof Number number) {
            if (number.doubleValue() != Math.rint(number.doubleValue()) || raw instanceof Double && Math.abs(
                    number.doubleValue()) > 9.007199254740992E15) {
                throw new ConversionException("expected " + type.describe() + ", found " + raw);
            }
            result = number.longValue();
        } else if (raw instanceof String text) {
            result = parseIntegral(text.trim(), value, type);
        } else {
            throw new ConversionException("expected " + type.describe() + ", found " + describe(value));
        }
        if (result < min || result > max) {
            throw new ConversionException(result + " does not fit " + type.name().toLowerCase() + " (" + min + ".."
                    + max + ")");
        }
        return result;
    }

    private static long parseIntegral(String text, ConfigValue value, AttributeType type)
            throws ConversionException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException notPlain) {
            Config holder = ConfigFactory.empty().withValue("v", value);
            try {
                return holder.getDuration("v").toMillis();
            } catch (ConfigException notDuration) {
                try {
                    return holder.getBytes("v");
                } catch (ConfigException notSize) {
                    throw new ConversionException("expected " + type.describe()
                            + " (or a duration like 500ms/5s, read as milliseconds, or a size like 64MiB), found '"
                            + text + "'");
                }
            }
        }
    }

    private static double decimal(Object raw, AttributeType type) throws ConversionException {
        if (raw instanceof Number number) {
            return number.doubleValue();
        }
        try {
            return Double.parseDouble(String.valueOf(raw).trim());
        } catch (NumberFormatException e) {
            throw new ConversionException("expected " + type.describe() + ", found '" + raw + "'");
        }
    }

    private static boolean bool(ConfigValue value) throws ConversionException {
        try {
            return ConfigFactory.empty().withValue("v", value).getBoolean("v");
        } catch (ConfigException e) {
            throw new ConversionException("expected true or false, found '" + value.unwrapped() + "'");
        }
    }

    private static char character(Object raw) throws ConversionException {
        String text = String.valueOf(raw);
        if (text.length() != 1) {
            throw new ConversionException("expected a single character, found '" + text + "'");
        }
        return text.charAt(0);
    }

    static String describe(ConfigValue value) {
        return switch (value.valueType()) {
            case OBJECT -> "an object";
            case LIST -> "a list";
            case NULL -> "null";
            case STRING -> "'" + value.unwrapped() + "'";
            default -> String.valueOf(value.unwrapped());
        };
    }

    private static String plural(AttributeType type) {
        return switch (type) {
            case LONG, INTEGER, SHORT, BYTE -> "integers";
            case DOUBLE, FLOAT -> "numbers";
            case BOOLEAN -> "booleans";
            case CHARACTER -> "characters";
            default -> "strings";
        };
    }

    private static Class<?> boxed(AttributeType type) {
        return switch (type) {
            case LONG -> Long.class;
            case INTEGER -> Integer.class;
            case SHORT -> Short.class;
            case BYTE -> Byte.class;
            case CHARACTER -> Character.class;
            case DOUBLE -> Double.class;
            case FLOAT -> Float.class;
            case BOOLEAN -> Boolean.class;
            default -> String.class;
        };
    }
}
