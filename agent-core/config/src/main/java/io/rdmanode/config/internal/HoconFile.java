// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.rdmanode.agent.Hocon;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Reads and resolves the configuration file. Substitutions resolve against the framework's {@code rdma.agent.*}
 * properties (the demo's state directory), then JVM system properties, then the environment
 * ({@code ${?STATE_DIRECTORY}}).
 */
final class HoconFile {

    /** A file read from disk: its text's checksum and either the resolved tree or why it is unusable. */
    record Parsed(String checksum, Config config, List<Problem> problems) {
        boolean ok() {
            return problems.isEmpty();
        }
    }

    /** Why an empty file is refused; the remedy is the save that never shows a reader a partial file. */
    static final String EMPTY = "the file is empty (a save in progress? write the new file beside it and rename it"
            + " over)";

    private HoconFile() {
    }

    /** The checksum identifies a revision of the file's content, so a save without changes is not a reload. */
    static String checksum(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The file is over {@link Hocon#MAX_FILE_BYTES}; its message says so and names the size. */
    static final class TooLargeException extends IOException {
        TooLargeException(long size) {
            super(Hocon.tooLarge(size));
        }
    }

    /**
     * The file's content, refused when it is over {@link Hocon#MAX_FILE_BYTES}: checked before reading, and the
     * read itself stops one byte past the limit, since the file may grow between the two.
     */
    static byte[] read(Path file) throws IOException {
        try (SeekableByteChannel channel = Files.newByteChannel(file)) {
            // The size of the file opened: a save by rename may swap the path meanwhile.
            long size = channel.size();
            if (size > Hocon.MAX_FILE_BYTES) {
                throw new TooLargeException(size);
            }
            byte[] content = Channels.newInputStream(channel).readNBytes(Hocon.MAX_FILE_BYTES + 1);
            if (content.length > Hocon.MAX_FILE_BYTES) {
                throw new TooLargeException(Math.max(channel.size(), content.length));
            }
            return content;
        }
    }

    /**
     * The parse's own stack. typesafe-config parses and resolves recursively: on the agent's 256 KiB thread stacks
     * (-Xss256k) 80 lines of {@code pools += {...}} or 150 nested objects overflowed on the reload thread, while
     * check-config, on another thread, accepted them (and died of a StackOverflowError at depth 1000). Every parse
     * runs on a thread of its own with this stack, so live reload and check-config see one limit.
     */
    static final long PARSE_STACK_BYTES = 16L << 20;

    /**
     * Deepest nesting accepted, whatever the stack: the mapping and every component walk the tree recursively on
     * their own threads, so a limit tied to one thread's stack would let a file through that another thread cannot
     * take. A real configuration nests less than ten deep.
     */
    static final int MAX_DEPTH = 64;

    /** How deep objects and lists nest under {@code root}, measured without recursion. */
    static int depth(com.typesafe.config.ConfigValue root) {
        java.util.ArrayDeque<Map.Entry<com.typesafe.config.ConfigValue, Integer>> todo = new java.util.ArrayDeque<>();
        todo.push(Map.entry(root, 1));
        int deepest = 0;
        while (!todo.isEmpty()) {
            var next = todo.pop();
            int level = next.getValue();
            deepest = Math.max(deepest, level);
            if (next.getKey() instanceof com.typesafe.config.ConfigObject object) {
                object.values().forEach(v -> todo.push(Map.entry(v, level + 1)));
            } else if (next.getKey() instanceof com.typesafe.config.ConfigList list) {
                list.forEach(v -> todo.push(Map.entry(v, level + 1)));
            }
        }
        return deepest;
    }

    static Parsed parse(Path file, byte[] content, Map<String, String> frameworkProperties) {
        java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
        Thread parser = new Thread(null, () -> {
            try {
                outcome.set(parseOnThisThread(file, content, frameworkProperties));
            } catch (RuntimeException | Error e) {
                outcome.set(e);
            }
        }, "rdma-agent-config-parse", PARSE_STACK_BYTES);
        parser.setDaemon(true);
        parser.start();
        boolean interrupted = false;
        while (true) {
            try {
                parser.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;                     // the parse is bounded (1 MiB of text): wait for it
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Object result = outcome.get();
        if (result instanceof RuntimeException e) {
            throw e;
        }
        if (result instanceof Error e) {
            throw e;
        }
        return (Parsed) result;
    }

    private static Parsed parseOnThisThread(Path file, byte[] content, Map<String, String> frameworkProperties) {
        String checksum = checksum(content);
        String name = file.toString();
        if (content.length == 0) {
            // HOCON reads an empty file as an empty config: every default, every pool deleted. It is far more
            // often a save caught between truncate and write (shell >, an editor writing in place) than meant.
            return new Parsed(checksum, null, List.of(new Problem(name, -1, "", EMPTY)));
        }
        try {
            ConfigParseOptions options = ConfigParseOptions.defaults().setOriginDescription(name)
                    .setSyntax(ConfigSyntax.CONF).setAllowMissing(false)
                    .setIncluder(new RelativeIncluder(file));
            String text = new String(content, StandardCharsets.UTF_8);
            Config parsed;
            try {
                parsed = ConfigFactory.parseString(text, options);
            } catch (IllegalArgumentException e) {
                // typesafe-config 1.4 reads the four characters after backslash-u with Integer.parseInt(.., 16),
                // which takes a sign: backslash-u-01b makes a negative code point, and appendCodePoint throws this
                // unchecked exception instead of a ConfigException (HoconMappingFuzzTest found it). A reload then
                // ended in an ERROR with a stack trace instead of a refusal that names the line.
                return new Parsed(checksum, null, List.of(new Problem(name, badUnicodeEscapeLine(text),
                        Problem.SYNTAX, "a \\u escape in a quoted string must be followed by four hex digits ("
                        + e.getMessage() + ")")));
            }
            int depth = depth(parsed.root());
            if (depth > MAX_DEPTH) {
                return new Parsed(checksum, null, List.of(new Problem(name, -1, "",
                        "objects or lists are nested " + depth + " levels deep; at most " + MAX_DEPTH)));
            }
            return new Parsed(checksum, Hocon.resolve(parsed, Hocon.substitutions(frameworkProperties)), List.of());
        } catch (ConfigException e) {
            int line = e.origin() != null ? e.origin().lineNumber() : -1;
            return new Parsed(checksum, null, List.of(new Problem(name, line, Problem.SYNTAX,
                    explained(clean(e.getMessage(), name)))));
        } catch (StackOverflowError e) {
            // typesafe-config parses and resolves recursively: a few thousand nested { or [ (fuzzing, #21) would
            // otherwise end the reload thread. The parser holds no shared state, so the refusal is clean.
            return new Parsed(checksum, null, List.of(new Problem(name, -1, "",
                    "objects or lists are nested too deeply to parse")));
        }
    }

    /** The 1-based line of the first backslash-u not followed by four hex digits; -1 when there is none. */
    static int badUnicodeEscapeLine(String text) {
        java.util.regex.Matcher m = BAD_UNICODE_ESCAPE.matcher(text);
        if (!m.find()) {
            return -1;
        }
        return (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
    }

    /** A backslash-u that is not itself escaped (an even run of backslashes before it) and lacks four hex digits. */
    private static final java.util.regex.Pattern BAD_UNICODE_ESCAPE =
            java.util.regex.Pattern.compile("(?<!\\\\)(?:\\\\\\\\)*\\\\u(?![0-9A-Fa-f]{4})");

    static Parsed unreadable(Path file, IOException e) {
        if (e instanceof TooLargeException) {
            return new Parsed("", null, List.of(new Problem(file.toString(), -1, "", e.getMessage())));
        }
        String reason = e instanceof NoSuchFileException ? "No such file" : e.toString();
        return new Parsed("", null, List.of(new Problem(file.toString(), -1, "", "cannot read: " + reason)));
    }

    /** typesafe-config's parser messages, with what they usually mean in an edited file. */
    private static final List<Map.Entry<String, String>> EXPLANATIONS = List.of(
            Map.entry("Expecting a value", "a value is missing after = or :"),
            Map.entry("end of file", "an object { or a list [ above is not closed"),
            Map.entry("close brace", "an object { is not closed, or two settings on one line lack a comma"),
            Map.entry("close bracket", "a list [ is not closed, or two elements lack a comma between them"),
            Map.entry("Reserved character", "quote a value that contains it: key = \"...\""),
            Map.entry("may not be followed by token", "a key takes = or : and a value, or { for an object"),
            Map.entry("Expecting end of input", "a second value follows the first one: join them with a comma"
                    + " inside [ ], or quote the whole value"),
            Map.entry("Could not resolve substitution", "${name} must be defined above or in the environment;"
                    + " ${?name} is optional"),
            Map.entry("unbalanced", "a quote or a bracket is not closed"),
            Map.entry("newline", "a string in \"...\" cannot span lines; use \"\"\"...\"\"\""));

    /** Appends what an operator should look for, when the parser's message is a known one. */
    static String explained(String message) {
        for (Map.Entry<String, String> explanation : EXPLANATIONS) {
            if (message.toLowerCase(java.util.Locale.ROOT).contains(
                    explanation.getKey().toLowerCase(java.util.Locale.ROOT))) {
                return message + " (" + explanation.getValue() + ")";
            }
        }
        return message;
    }

    /** typesafe-config prefixes messages with "NAME: LINE: "; the problem already says where. */
    private static String clean(String message, String name) {
        String text = message;
        if (text.startsWith(name)) {
            text = text.substring(name.length()).replaceFirst("^:\\s*\\d+:\\s*", "").replaceFirst("^:\\s*", "");
        }
        return text;
    }
}
