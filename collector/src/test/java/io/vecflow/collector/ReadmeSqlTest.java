package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.clickhouse.ClickHouseSinkTestSupport;
import io.vecflow.collector.sink.kafka.KafkaDecodedSink;
import io.vecflow.collector.sink.kafka.ProtoFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The ClickHouse Kafka-engine path documented in {@code collector/src/main/proto/README.md}: its Kafka table lists the
 * {@code flow.proto} fields and its materialized view fills every {@code flows} column, by the static text; then both
 * statements run on the test ClickHouse ({@code VECFLOW_TEST_CLICKHOUSE_URL}; fails when missing) with the Kafka engine
 * replaced by {@code Null} (and IPv6 by FixedString(16) on servers without it), a row goes through the view, and the
 * {@code flows} table the collector creates holds its values.
 */
class ReadmeSqlTest {
    static final Path README = Path.of("src", "main", "proto", "README.md");

    /** @return the statements of the README's sql block: [Kafka table, materialized view]. */
    static List<String> statements() throws Exception {
        String text = Files.readString(README);
        Matcher m = Pattern.compile("```sql\n(.*?)```", Pattern.DOTALL).matcher(text);
        assertThat(m.find()).as("a ```sql block in " + README).isTrue();
        String sql = m.group(1);
        assertThat(m.find()).as("one sql block only").isFalse();
        List<String> out = new ArrayList<>();
        for (String s : sql.split(";\n")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        assertThat(out).hasSize(2);
        return out;
    }

    private static List<String> columnNames(String createTable) {
        String body = createTable.substring(createTable.indexOf("(\n") + 2, createTable.indexOf("\n)"));
        List<String> names = new ArrayList<>();
        for (String line : body.split("\n")) {
            names.add(line.strip().split("\\s+")[0]);
        }
        return names;
    }

    @Test
    void theKafkaTableListsTheProtoFieldsAndTheViewFillsEveryFlowsColumn() throws Exception {
        List<String> st = statements();
        String kafka = st.get(0), view = st.get(1);
        List<String> fields = ProtoFile.flowMessage().getFields().stream().map(FieldDescriptor::getName).toList();
        assertThat(columnNames(kafka)).containsExactlyElementsOf(fields);
        assertThat(kafka).contains("kafka_topic_list = '" + KafkaDecodedSink.DEFAULT_TOPIC + "'")
                .contains("kafka_format = 'ProtobufSingle'")
                .contains("kafka_schema = 'flow.proto:FlowMessage'");
        Matcher a = Pattern.compile("^\\s+(\\w+) AS (\\w+),?$", Pattern.MULTILINE).matcher(view);
        List<String> targets = new ArrayList<>();
        while (a.find()) {
            targets.add(a.group(2));
            assertThat(a.group(1).replace("_", "")).as("source of " + a.group(2))
                    .isEqualToIgnoringCase(a.group(2));
        }
        assertThat(targets).containsExactlyElementsOf(FlowSchema.columnNames());
    }

    @Test
    void aRowThroughTheViewLandsInTheFlowsTable() throws Exception {
        List<String> st = statements();
        String db = "proto_readme_" + TestSupport.suffix();
        FlowSchema.ServerFeatures f =
                FlowSchema.ServerFeatures.fromVersion(ClickHouseSinkTestSupport.query("SELECT version()"));
        String kafka = st.get(0).replace("vecflow.", db + ".");
        kafka = kafka.substring(0, kafka.indexOf("ENGINE = Kafka")) + "ENGINE = Null";
        if (!f.ipv6Type()) {
            kafka = kafka.replace(" IPv6,", " FixedString(16),").replace("Array(IPv6)", "Array(FixedString(16))");
        }
        String view = st.get(1).replace("vecflow.", db + ".");
        ClickHouseSinkTestSupport.query("CREATE DATABASE " + db);
        try {
            ClickHouseSinkTestSupport.query(FlowSchema.createFlows(db, f, 15));
            ClickHouseSinkTestSupport.query(kafka);
            ClickHouseSinkTestSupport.query(view);
            String addr = f.ipv6Type() ? "toIPv6('::ffff:192.0.2.1')" : "IPv6StringToNum('::ffff:192.0.2.1')";
            ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".flows_kafka (time_received, time_received_nanos, "
                    + "agent_address, sample_sequence, sample_type, discard_reason, discard_reason_name, src_port, "
                    + "ip_ttl, dst_as_path, bytes, packets) SELECT toDateTime(1780000000), 1780000000123456789, "
                    + addr + ", 4000000000, 0, 0, '', 443, 64, [65001, 4200000000], 1500, 1");
            // A discard does not go to flows (the view keeps sample_type FLOW; discards belong in drops).
            ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".flows_kafka (time_received, sample_type, "
                    + "discard_reason, discard_reason_name) SELECT toDateTime(1780000000), 1, 258, 'acl'");
            String got = ClickHouseSinkTestSupport.query("SELECT toUnixTimestamp(TimeReceived), TimeReceivedNanos, "
                    + (f.ipv6Type() ? "toString(AgentAddress)" : "IPv6NumToString(AgentAddress)")
                            + ", SampleSequence, SampleType, DiscardReason, "
                    + "SrcPort, IPTTL, DstASPath, Bytes, Packets, DstPort FROM " + db + ".flows FORMAT TSV");
            assertThat(got).isEqualTo("1780000000\t1780000000123456789\t::ffff:192.0.2.1\t4000000000\t0\t0\t443\t64\t"
                    + "[65001,4200000000]\t1500\t1\t0\n");
        } finally {
            ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
        }
    }
}
