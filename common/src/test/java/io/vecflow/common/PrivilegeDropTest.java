package io.vecflow.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PrivilegeDrop} without changing this JVM's identity (surefire reuses it): the checks that run before and
 * after the set*id calls. The drop itself is tested on the packaged agent, as root, in dist's
 * {@code HsflowdPackageIT} (uid, gid and capabilities of every thread, samples still received).
 */
class PrivilegeDropTest {
    @Test
    void testsRunAsRoot() {
        assertThat(PrivilegeDrop.effectiveUid())
                .as("these tests and the privilege-drop test of the package run as root (CI does)").isZero();
    }

    @Test
    void unknownUserIsAClearErrorAndChangesNothing() {
        assertThatThrownBy(() -> PrivilegeDrop.dropTo("vecflow-no-such-user-4711"))
                .isInstanceOf(PrivilegeDrop.PrivilegeDropException.class)
                .hasMessageContaining("--user vecflow-no-such-user-4711: no such user");
        assertThat(PrivilegeDrop.effectiveUid()).isZero();
    }

    @Test
    void emptyUserIsRejected() {
        assertThatThrownBy(() -> PrivilegeDrop.dropTo(" ")).hasMessageContaining("empty user name");
    }

    @Test
    void rootTargetKeepsRoot() throws Exception {
        PrivilegeDrop.Result r = PrivilegeDrop.dropTo("root");
        assertThat(r.dropped()).isFalse();
        assertThat(r.uid()).isZero();
        assertThat(r.note()).contains("keeping root");
        assertThat(PrivilegeDrop.effectiveUid()).isZero();
    }

    @Test
    void threadCheckSeesRootUidsAndCapabilities() throws Exception {
        // As root every thread has uid 0 and a non-zero CapEff/CapPrm: checked against nobody's ids, the
        // verification must report each thread's Uid, Gid, CapEff and CapPrm lines.
        List<String> problems = PrivilegeDrop.threadProblems(65534, 65534);
        long threads = Thread.getAllStackTraces().size();
        assertThat(problems).anyMatch(p -> p.matches("thread \\d+: Uid:\\s+0\\s+0\\s+0\\s+0"));
        assertThat(problems).anyMatch(p -> p.matches("thread \\d+: Gid:\\s+0\\s+0\\s+0\\s+0"));
        assertThat(problems).anyMatch(p -> p.matches("thread \\d+( \\(.*\\))?: CapEff:\\s+0*[1-9a-f][0-9a-f]*"));
        assertThat(problems).anyMatch(p -> p.matches("thread \\d+( \\(.*\\))?: CapPrm:\\s+0*[1-9a-f][0-9a-f]*"));
        assertThat(problems.stream().filter(p -> p.contains("Uid:")).count())
                .as("one Uid problem per thread of this JVM").isGreaterThanOrEqualTo(Math.min(threads, 2));
        // Against root's own ids only the capability lines remain.
        assertThat(PrivilegeDrop.threadProblems(0, 0)).isNotEmpty()
                .allMatch(p -> p.contains("CapEff:") || p.contains("CapPrm:"));
    }
}
