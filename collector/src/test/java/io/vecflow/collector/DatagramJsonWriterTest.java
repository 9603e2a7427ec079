package io.vecflow.collector;

import static io.vecflow.sflow.HandDatagram.counterSample;
import static io.vecflow.sflow.HandDatagram.datagram;
import static io.vecflow.sflow.HandDatagram.flowSample;
import static io.vecflow.sflow.HandDatagram.record;
import static io.vecflow.sflow.HandDatagram.recordWithLength;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.SflowFormats;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * The JSON view of records that repeat or fail: each listed record is written from what the sample says about it —
 * the last copy of a record type with its fields, earlier copies as superseded stubs, failed records with their error
 * and no (stale) fields — and every offset counts from the start of the sFlow datagram.
 */
class DatagramJsonWriterTest {
    private static final int SWITCH = SflowFormats.EXTENDED_SWITCH;
    private static final int ROUTER = SflowFormats.EXTENDED_ROUTER;
    private final DatagramJsonWriter writer = new DatagramJsonWriter();

    /** @return the compact JSON of {@code d} placed {@code off} bytes into a larger buffer. */
    private String json(byte[] d, int off) throws Exception {
        byte[] buf = new byte[off + d.length + 3];
        System.arraycopy(d, 0, buf, off, d.length);
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            writer.write(g, buf, off, d.length, null);
        }
        return out.toString();
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void anEarlierCopyIsASupersededStubAndTheLastCopyHasTheData() throws Exception {
        String j = json(datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2),
                record(SflowFormats.SAMPLED_HEADER, 1, 60, 0, 4, 0x01020304), record(SWITCH, 20, 3, 21, 4),
                record(SflowFormats.SAMPLED_HEADER, 1, 70, 0, 4, 0x05060708))), 0);
        assertThat(j).contains("{\"data_format\":\"0:1001\",\"record_type\":\"extended_switch\",\"superseded\":true},"
                + "{\"data_format\":\"0:1\",\"record_type\":\"sampled_header\",\"superseded\":true},"
                + "{\"data_format\":\"0:1001\",\"record_type\":\"extended_switch\",\"src_vlan\":20,\"src_priority\":3,"
                + "\"dst_vlan\":21,\"dst_priority\":4},"
                + "{\"data_format\":\"0:1\",\"record_type\":\"sampled_header\",\"header_protocol\":1,"
                + "\"frame_length\":70,");
        assertThat(count(j, "\"src_vlan\":")).isEqualTo(1);
        assertThat(count(j, "\"frame_length\":")).isEqualTo(1);
    }

    @Test
    void aFailedRecordShowsItsErrorNotTheHolderOfAnEarlierDatagram() throws Exception {
        json(datagram(1, 1000, flowSample(1, record(SWITCH, 99, 1, 98, 2))), 0); // fills the holder
        byte[] cut = recordWithLength(SWITCH, 14, 10, 1, 11, 0x02000000);
        String j = json(datagram(2, 2000, flowSample(2, cut, record(ROUTER, 1, 0x0A000001, 24, 16))), 5);
        // 28 datagram header + 8 sample header + 32 compact flow_sample fields + 8 record header + 12 = 88
        assertThat(j).contains("{\"data_format\":\"0:1001\",\"record_type\":\"extended_switch\",\"error\":{\"kind\":"
                + "\"TRUNCATED\",\"field\":\"extended_switch.dst_priority\",\"offset\":88}},"
                + "{\"data_format\":\"0:1002\",\"record_type\":\"extended_router\",\"nexthop\":\"10.0.0.1\","
                + "\"src_mask_len\":24,\"dst_mask_len\":16}]");
        assertThat(j).doesNotContain("src_vlan").contains("\"record_errors\":1");
        assertThat(j).as("sample offsets count from the datagram, not the buffer").contains(
                "\"sample_type\":\"flow_sample\",\"data_format\":\"0:1\",\"offset\":28,");
    }

    @Test
    void aFailedCounterRecordShowsItsErrorAndTheUnknownRecordAfterItKeepsItsBytes() throws Exception {
        json(datagram(1, 1000, counterSample(1, record(CounterRecords.IF_COUNTERS, new int[22]))), 0);
        String j = json(datagram(2, 2000, counterSample(2, record(CounterRecords.IF_COUNTERS, 7, 6),
                record(SflowFormats.dataFormat(0, 999), 0x0badcafe),
                record(CounterRecords.PROCESSOR, 1, 2, 3, 0, 4, 0, 5),
                record(CounterRecords.PROCESSOR, 6, 7, 8, 0, 9, 0, 10))), 0);
        assertThat(j).contains("{\"data_format\":\"0:1\",\"record_type\":\"if_counters\",\"error\":{\"kind\":"
                + "\"TRUNCATED\",\"field\":\"if_counters.");
        assertThat(j).contains("{\"data_format\":\"0:999\",\"record_type\":\"unknown\",\"length\":4,"
                + "\"data\":\"0badcafe\"}");
        assertThat(j).contains("{\"data_format\":\"0:1001\",\"record_type\":\"processor\",\"superseded\":true},"
                + "{\"data_format\":\"0:1001\",\"record_type\":\"processor\",\"cpu5s\":6,");
        assertThat(j).doesNotContain("if_in_octets").contains("\"record_errors\":1");
    }
}
