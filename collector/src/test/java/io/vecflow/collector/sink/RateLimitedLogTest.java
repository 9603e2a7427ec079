package io.vecflow.collector.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** Item 11: a fault that lasts is a handful of log lines, not one per second. */
class RateLimitedLogTest {
    /** Records what is logged. */
    static final class Recording extends LegacyAbstractLogger {
        final List<String> lines = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String msg, Object[] args,
                Throwable t) {
            lines.add(level + " " + MessageFormatter.basicArrayFormat(msg, args));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }

    @Test
    void aRepeatedFaultIsLoggedOncePerIntervalWithTheCountLeftOut() throws Exception {
        Recording r = new Recording();
        RateLimitedLog log = new RateLimitedLog(r, 300);
        for (int i = 0; i < 100; i++) { // a failure every 10 ms for 1 s
            log.warn("insert", "insert failed: {}", "Connection refused");
            log.warn("other", "another fault {}", i);
            Thread.sleep(10);
        }
        long insert = r.lines.stream().filter(l -> l.contains("insert failed")).count();
        assertThat(insert).as(r.lines.toString()).isBetween(3L, 6L);
        assertThat(r.lines.getFirst()).isEqualTo("WARN insert failed: Connection refused");
        assertThat(r.lines.stream().filter(l -> l.startsWith("WARN insert failed: Connection refused (")
                && l.contains(" more like this in the last ")).count()).isEqualTo(insert - 1);
        assertThat(r.lines.stream().filter(l -> l.contains("another fault")).count()).isBetween(3L, 6L);
        // Over: the next one is logged at once.
        log.reset("insert");
        int before = r.lines.size();
        log.warn("insert", "insert failed: {}", "again");
        assertThat(r.lines).hasSize(before + 1);
        assertThat(r.lines.getLast()).isEqualTo("WARN insert failed: again");
    }
}
