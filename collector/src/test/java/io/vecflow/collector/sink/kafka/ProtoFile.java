package io.vecflow.collector.sink.kafka;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A test-only reader for the subset of proto3 that {@code flow.proto} uses — {@code syntax}, {@code package},
 * {@code option}, top-level {@code enum}s, top-level {@code message}s with nested {@code enum}s and scalar, enum and
 * {@code repeated} fields, {@code reserved} — turned into protobuf-java descriptors (the build has no protoc).
 * Anything else is an error naming the line, so the file cannot silently drift outside what this reader checks.
 */
public final class ProtoFile {
    private ProtoFile() {}

    /** The schema the collector writes, relative to the collector module (the tests' working directory). */
    static final Path FLOW_PROTO = Path.of("src", "main", "proto", "vecflow", "flow", "v1", "flow.proto");

    private static final Map<String, FieldDescriptorProto.Type> SCALARS = Map.ofEntries(
            Map.entry("double", FieldDescriptorProto.Type.TYPE_DOUBLE),
            Map.entry("float", FieldDescriptorProto.Type.TYPE_FLOAT),
            Map.entry("int32", FieldDescriptorProto.Type.TYPE_INT32),
            Map.entry("int64", FieldDescriptorProto.Type.TYPE_INT64),
            Map.entry("uint32", FieldDescriptorProto.Type.TYPE_UINT32),
            Map.entry("uint64", FieldDescriptorProto.Type.TYPE_UINT64),
            Map.entry("sint32", FieldDescriptorProto.Type.TYPE_SINT32),
            Map.entry("sint64", FieldDescriptorProto.Type.TYPE_SINT64),
            Map.entry("fixed32", FieldDescriptorProto.Type.TYPE_FIXED32),
            Map.entry("fixed64", FieldDescriptorProto.Type.TYPE_FIXED64),
            Map.entry("sfixed32", FieldDescriptorProto.Type.TYPE_SFIXED32),
            Map.entry("sfixed64", FieldDescriptorProto.Type.TYPE_SFIXED64),
            Map.entry("bool", FieldDescriptorProto.Type.TYPE_BOOL),
            Map.entry("string", FieldDescriptorProto.Type.TYPE_STRING),
            Map.entry("bytes", FieldDescriptorProto.Type.TYPE_BYTES));

    /** @return the descriptor of {@code vecflow.flow.v1.FlowMessage} read from {@link #FLOW_PROTO}. */
    public static Descriptors.Descriptor flowMessage() throws IOException {
        Descriptors.FileDescriptor f = load(FLOW_PROTO);
        Descriptors.Descriptor d = f.findMessageTypeByName("FlowMessage");
        if (d == null) {
            throw new AssertionError(FLOW_PROTO + " has no message FlowMessage");
        }
        return d;
    }

    /** Parses a .proto file and builds its descriptor (no imports). */
    static Descriptors.FileDescriptor load(Path file) throws IOException {
        FileDescriptorProto proto = parse(file.getFileName().toString(), Files.readString(file));
        try {
            return Descriptors.FileDescriptor.buildFrom(proto, new Descriptors.FileDescriptor[0]);
        } catch (Descriptors.DescriptorValidationException e) {
            throw new AssertionError(file + ": " + e.getMessage(), e);
        }
    }

    /** Parses .proto text into a FileDescriptorProto. */
    static FileDescriptorProto parse(String fileName, String text) {
        Lexer lx = new Lexer(fileName, text);
        FileDescriptorProto.Builder file = FileDescriptorProto.newBuilder().setName(fileName);
        String pkg = "";
        List<DescriptorProto.Builder> messages = new ArrayList<>();
        Set<String> fileEnums = new HashSet<>();
        while (!lx.atEnd()) {
            String kw = lx.ident();
            switch (kw) {
                case "syntax" -> {
                    lx.expect("=");
                    String s = lx.string();
                    if (!s.equals("proto3")) {
                        throw lx.error("only proto3 is supported, got syntax \"" + s + "\"");
                    }
                    file.setSyntax(s);
                    lx.expect(";");
                }
                case "package" -> {
                    pkg = lx.qualifiedName();
                    file.setPackage(pkg);
                    lx.expect(";");
                }
                case "option" -> {
                    String name = lx.ident();
                    lx.expect("=");
                    lx.value();
                    lx.expect(";");
                    if (!name.startsWith("java_")) {
                        throw lx.error("unsupported file option " + name);
                    }
                }
                case "message" -> messages.add(message(lx, pkg, fileEnums));
                case "enum" -> {
                    EnumDescriptorProto.Builder e = enumBody(lx);
                    fileEnums.add(e.getName());
                    file.addEnumType(e);
                }
                default -> throw lx.error("unsupported top-level statement '" + kw + "'");
            }
        }
        messages.forEach(file::addMessageType);
        return file.build();
    }

    private static EnumDescriptorProto.Builder enumBody(Lexer lx) {
        EnumDescriptorProto.Builder e = EnumDescriptorProto.newBuilder().setName(lx.ident());
        lx.expect("{");
        while (!lx.peek("}")) {
            String vn = lx.ident();
            lx.expect("=");
            e.addValue(EnumValueDescriptorProto.newBuilder().setName(vn).setNumber(lx.integer()));
            lx.expect(";");
        }
        lx.expect("}");
        return e;
    }

    /** A message; {@code fileEnums} are the enums declared at top level before it (a field may use them). */
    private static DescriptorProto.Builder message(Lexer lx, String pkg, Set<String> fileEnums) {
        String name = lx.ident();
        DescriptorProto.Builder m = DescriptorProto.newBuilder().setName(name);
        Set<String> enums = new HashSet<>();
        List<Object[]> pending = new ArrayList<>(); // fields whose type is resolved after the body: {builder, type}
        lx.expect("{");
        while (!lx.peek("}")) {
            String first = lx.ident();
            if (first.equals("enum")) {
                EnumDescriptorProto.Builder e = enumBody(lx);
                enums.add(e.getName());
                m.addEnumType(e);
                continue;
            }
            if (first.equals("reserved")) {
                while (!lx.peek(";")) {
                    lx.next();
                }
                lx.expect(";");
                continue;
            }
            FieldDescriptorProto.Builder f = FieldDescriptorProto.newBuilder()
                    .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
            String type = first;
            if (first.equals("repeated")) {
                f.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED);
                type = lx.ident();
            } else if (first.equals("optional") || first.equals("oneof") || first.equals("map")
                    || first.equals("message")) {
                throw lx.error("unsupported in FlowMessage: '" + first + "'");
            }
            f.setName(lx.ident());
            lx.expect("=");
            f.setNumber(lx.integer());
            if (lx.peek("[")) {
                throw lx.error("field options are not supported (proto3 packs repeated scalars by default)");
            }
            lx.expect(";");
            pending.add(new Object[] {f, type});
        }
        lx.expect("}");
        for (Object[] p : pending) {
            FieldDescriptorProto.Builder f = (FieldDescriptorProto.Builder) p[0];
            String type = (String) p[1];
            FieldDescriptorProto.Type scalar = SCALARS.get(type);
            if (scalar != null) {
                f.setType(scalar);
            } else if (enums.contains(type)) {
                f.setType(FieldDescriptorProto.Type.TYPE_ENUM).setTypeName("." + pkg + "." + name + "." + type);
            } else if (fileEnums.contains(type)) {
                f.setType(FieldDescriptorProto.Type.TYPE_ENUM).setTypeName("." + pkg + "." + type);
            } else {
                throw new IllegalArgumentException("field " + f.getName() + " of " + name + ": unknown type " + type);
            }
            m.addField(f);
        }
        return m;
    }

    /** Tokens: identifiers (with dots), integers, strings, single-character symbols; comments skipped. */
    private static final class Lexer {
        private final String file, s;
        private int pos, line = 1;

        Lexer(String file, String s) {
            this.file = file;
            this.s = s;
            skip();
        }

        IllegalArgumentException error(String msg) {
            return new IllegalArgumentException(file + ":" + line + ": " + msg);
        }

        boolean atEnd() {
            return pos >= s.length();
        }

        private void skip() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == '\n') {
                    line++;
                    pos++;
                } else if (Character.isWhitespace(c)) {
                    pos++;
                } else if (s.startsWith("//", pos)) {
                    while (pos < s.length() && s.charAt(pos) != '\n') {
                        pos++;
                    }
                } else if (s.startsWith("/*", pos)) {
                    int end = s.indexOf("*/", pos + 2);
                    if (end < 0) {
                        throw error("unterminated comment");
                    }
                    line += (int) s.substring(pos, end).chars().filter(ch -> ch == '\n').count();
                    pos = end + 2;
                } else {
                    return;
                }
            }
        }

        String next() {
            if (atEnd()) {
                throw error("unexpected end of file");
            }
            int start = pos;
            char c = s.charAt(pos);
            if (Character.isLetterOrDigit(c) || c == '_' || c == '-') {
                pos++;
                while (pos < s.length()
                        && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_' || s.charAt(pos) == '.')) {
                    pos++;
                }
            } else if (c == '"') {
                int end = s.indexOf('"', pos + 1);
                if (end < 0) {
                    throw error("unterminated string");
                }
                pos = end + 1;
            } else {
                pos++;
            }
            String t = s.substring(start, pos);
            skip();
            return t;
        }

        boolean peek(String t) {
            if (atEnd()) {
                throw error("unexpected end of file, expected '" + t + "'");
            }
            return s.startsWith(t, pos);
        }

        void expect(String t) {
            String got = next();
            if (!got.equals(t)) {
                throw error("expected '" + t + "', got '" + got + "'");
            }
        }

        String ident() {
            String t = next();
            if (!(Character.isLetter(t.charAt(0)) || t.charAt(0) == '_')) {
                throw error("expected an identifier, got '" + t + "'");
            }
            return t;
        }

        String qualifiedName() {
            return ident();
        }

        String string() {
            String t = next();
            if (t.length() < 2 || t.charAt(0) != '"') {
                throw error("expected a string, got '" + t + "'");
            }
            return t.substring(1, t.length() - 1);
        }

        int integer() {
            String t = next();
            try {
                return Integer.parseInt(t);
            } catch (NumberFormatException e) {
                throw error("expected an integer, got '" + t + "'");
            }
        }

        String value() {
            return next();
        }
    }
}
