package io.vecflow.dataplane.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class SampleFifoTest {
    @Test
    void claimsTheRecordsTheMainThreadReturnedBeforeTheReserve() {
        SampleFifo fifo = new SampleFifo(2047);
        IdentityHashMap<SampleRecord, Boolean> used = new IdentityHashMap<>();
        for (int round = 0; round < 1000; round++) { // 3 samples per drain, as 1-in-100 of a 256-packet vector
            List<SampleRecord> taken = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                SampleRecord r = fifo.claim();
                assertThat(r).isNotNull();
                used.put(r, true);
                taken.add(r);
            }
            taken.forEach(fifo::publish);
            for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
                fifo.release(r);
            }
        }
        // the working set is the samples between two drains, not all 2,047 records in turn
        assertThat(used).hasSize(3);
        assertThat(fifo.enqueued()).isEqualTo(3000);
        assertThat(fifo.dropped()).isZero();
    }

    @Test
    void everyRecordStillServesABurstAndASurplusOfReturnedOnesGoesBackToTheReserve() {
        SampleFifo fifo = new SampleFifo(300);
        List<SampleRecord> burst = new ArrayList<>();
        for (SampleRecord r = fifo.claim(); r != null; r = fifo.claim()) {
            burst.add(r);
        }
        assertThat(burst).hasSize(300);
        assertThat(fifo.dropped()).isEqualTo(1); // the 301st claim: tail drop, counted
        assertThat(new IdentityHashMap<SampleRecord, Boolean>() {
            {
                burst.forEach(r -> put(r, true));
            }
        }).hasSize(300);
        burst.forEach(fifo::publish);
        for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
            fifo.release(r);
        }
        // 300 returned: each claim takes one and moves one surplus into the reserve until 64 wait
        IdentityHashMap<SampleRecord, Boolean> again = new IdentityHashMap<>();
        for (int i = 0; i < 300; i++) {
            SampleRecord r = fifo.claim();
            assertThat(r).isNotNull();
            again.put(r, true);
        }
        assertThat(again).hasSize(300);
        assertThat(fifo.claim()).isNull();
        assertThat(fifo.dropped()).isEqualTo(2);
    }
}
