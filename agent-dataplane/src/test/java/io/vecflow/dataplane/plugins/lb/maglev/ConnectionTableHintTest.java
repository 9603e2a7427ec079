package io.vecflow.dataplane.plugins.lb.maglev;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.plugins.lb.LbNode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Stale slot hints: {@link ConnectionTable#select} with the hints {@link ConnectionTable#touch} gave for a whole vector
 * before any of its packets was decided (as {@link LbNode} does) must decide exactly as without hints, even when an
 * earlier packet of the vector cleared (FIN/RST option), re-selected, expired or reclaimed the hinted slot. Random
 * vectors over the smallest table (8 slots), few distinct tags (so tags collide between flows) and a clock that
 * expires entries, against a second table driven without hints.
 */
class ConnectionTableHintTest {
    @Test
    void hintsGatheredBeforeTheVectorNeverChangeADecision() {
        SplittableRandom rnd = new SplittableRandom(7);
        MaglevTable ring = new MaglevTable(MaglevTable.DEFAULT_SIZE, MaglevTable.WeightMode.V1);
        List<MaglevTable.Endpoint> eps = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            eps.add(new MaglevTable.Endpoint(i, 1, 0x9E3779B97F4A7C15L * (i + 1)));
        }
        ring.rebuild(eps);
        int[] generation = {0, 0, 0, 0};
        for (int capacity : new int[] {ConnectionTable.MIN_CAPACITY, 16, 64}) {
            for (boolean finRst : new boolean[] {false, true}) {
                ConnectionTable hinted = new ConnectionTable(capacity, 1000, 700, finRst);
                ConnectionTable plain = new ConnectionTable(capacity, 1000, 700, finRst);
                int flows = capacity * 3;
                FlowKey[] keys = new FlowKey[flows];
                long[] hashes = new long[flows];
                for (int f = 0; f < flows; f++) {
                    keys[f] = new FlowKey().setIpv4(0x0A000000 | f, 0xC0000201, FlowKey.PROTO_TCP, 1000 + f, 80);
                    // 4 distinct tags over all flows, random bucket bits: tag collisions in every bucket
                    hashes[f] = (long) (1 + rnd.nextInt(4)) << 48 | rnd.nextLong() & 0xFFFF_FFFF_FFFFL;
                }
                long now = 0;
                int staleHints = 0;
                int[] vec = new int[64];
                int[] flags = new int[64];
                int[] hints = new int[64];
                for (int round = 0; round < 3000; round++) {
                    now += rnd.nextInt(200);
                    if (round % 500 == 499) {
                        generation[rnd.nextInt(4)]++; // a backend changes: live entries get re-selected
                    }
                    int n = 1 + rnd.nextInt(64);
                    for (int i = 0; i < n; i++) {
                        vec[i] = rnd.nextInt(flows);
                        if (i > 0 && rnd.nextInt(3) == 0) {
                            vec[i] = vec[rnd.nextInt(i)]; // the same flow again in the vector
                        }
                        flags[i] = rnd.nextInt(6) == 0 ? FlowKey.TCP_FIN : FlowKey.TCP_ACK;
                    }
                    for (int i = 0; i < n; i++) {
                        hinted.touchTags(hashes[vec[i]]);
                    }
                    for (int i = 0; i < n; i++) {
                        hinted.touch(hashes[vec[i]]);
                        hints[i] = hinted.touchedSlot();
                    }
                    for (int i = 0; i < n; i++) {
                        FlowKey k = keys[vec[i]];
                        k.tcpFlags = flags[i];
                        int a = hinted.select(k, hashes[vec[i]], hints[i], now, ring, generation);
                        int oa = hinted.lastOutcome();
                        int b = plain.select(k, hashes[vec[i]], ConnectionTable.NONE, now, ring, generation);
                        int ob = plain.lastOutcome();
                        String what = "capacity " + capacity + " finRst " + finRst + " round " + round + " packet "
                                + i + " flow " + vec[i] + " hint " + hints[i];
                        assertThat(a).as(what).isEqualTo(b);
                        assertThat(oa).as(what).isEqualTo(ob);
                        if (hints[i] >= 0 && oa != ConnectionTable.HITS && oa != ConnectionTable.RESELECTED) {
                            staleHints++; // the hinted slot did not (or no longer) hold a live entry of this flow
                        }
                    }
                    assertThat(hinted.liveEntries(now)).isEqualTo(plain.liveEntries(now));
                }
                for (int c = 0; c <= ConnectionTable.REMOVED; c++) {
                    assertThat(hinted.counter(c)).as("counter " + c).isEqualTo(plain.counter(c));
                }
                assertThat(staleHints).as("hints that no longer led to the flow").isGreaterThan(100);
                assertThat(hinted.counter(ConnectionTable.EXPIRED)).isPositive();
                assertThat(hinted.counter(ConnectionTable.FULL)).isPositive();
                if (finRst) {
                    assertThat(hinted.counter(ConnectionTable.REMOVED)).isPositive();
                }
            }
        }
    }
}
