package io.vecflow.collector.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.enrich.snmp.SnmpCredentials.AuthProtocol;
import io.vecflow.collector.enrich.snmp.SnmpCredentials.PrivProtocol;
import io.vecflow.collector.enrich.snmp.SnmpCredentials.SecurityLevel;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SnmpCredentials} from configuration strings: what is accepted, and the errors for what is not. */
class SnmpCredentialsTest {

    @Test
    void protocolNamesAreAkvorados() {
        assertThat(Arrays.stream(AuthProtocol.values()).map(Enum::name))
                .containsExactly("MD5", "SHA", "SHA224", "SHA256", "SHA384", "SHA512");
        assertThat(Arrays.stream(PrivProtocol.values()).map(Enum::name))
                .containsExactly("DES", "AES", "AES192", "AES256", "AES192C", "AES256C");
        assertThat(AuthProtocol.parse("sha")).isEqualTo(AuthProtocol.SHA);
        assertThat(AuthProtocol.parse("SHA1")).isEqualTo(AuthProtocol.SHA);
        assertThat(AuthProtocol.parse("sha-256")).isEqualTo(AuthProtocol.SHA256);
        assertThat(AuthProtocol.parse(" SHA_512 ")).isEqualTo(AuthProtocol.SHA512);
        assertThat(PrivProtocol.parse("aes")).isEqualTo(PrivProtocol.AES);
        assertThat(PrivProtocol.parse("AES-128")).isEqualTo(PrivProtocol.AES);
        assertThat(PrivProtocol.parse("aes-256-c")).isEqualTo(PrivProtocol.AES256C);
        assertThat(PrivProtocol.parse("des")).isEqualTo(PrivProtocol.DES);
    }

    @Test
    void unknownProtocolsAreNamedWithTheAllowedOnes() {
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", "sha9", "passphrase1", null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown SNMPv3 authentication protocol \"sha9\" (allowed: MD5, SHA, SHA224, SHA256, "
                        + "SHA384, SHA512)");
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", "SHA", "passphrase1", "3des", "passphrase2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown SNMPv3 privacy protocol \"3des\" (allowed: DES, AES, AES192, AES256, AES192C, "
                        + "AES256C)");
    }

    @Test
    void securityLevelFollowsWhatIsSet() {
        SnmpCredentials none = SnmpCredentials.v3("ro", null, null, null, null);
        SnmpCredentials blank = SnmpCredentials.v3("ro", "", " ", "", "");
        SnmpCredentials auth = SnmpCredentials.v3("ro", "SHA256", "passphrase1", null, null);
        SnmpCredentials priv = SnmpCredentials.v3("ro", "SHA", "passphrase1", "AES", "passphrase2");
        assertThat(none.securityLevel()).isEqualTo(SecurityLevel.NO_AUTH_NO_PRIV);
        assertThat(blank).isEqualTo(none);
        assertThat(auth.securityLevel()).isEqualTo(SecurityLevel.AUTH_NO_PRIV);
        assertThat(priv.securityLevel()).isEqualTo(SecurityLevel.AUTH_PRIV);
        assertThat(priv.isV3()).isTrue();
        assertThat(priv.authProtocol()).isEqualTo(AuthProtocol.SHA);
        assertThat(priv.privProtocol()).isEqualTo(PrivProtocol.AES);
        assertThat(priv.communities()).isEmpty();
    }

    @Test
    void v2cKeepsTheOrder() {
        SnmpCredentials c = SnmpCredentials.v2c("private", "public");
        assertThat(c.isV3()).isFalse();
        assertThat(c.communities()).containsExactly("private", "public");
        assertThat(c.user()).isNull();
    }

    @Test
    void badCombinationsNameTheField() {
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", "SHA", "short", null, null))
                .hasMessage("SNMPv3 user \"ro\": authentication passphrase for SHA has 5 characters (need at least 8, "
                        + "RFC 3414 §11.2)");
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", "SHA", null, null, null))
                .hasMessage("SNMPv3 user \"ro\": authentication passphrase for SHA is missing (need at least 8, RFC "
                        + "3414 §11.2)");
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", "SHA", "passphrase1", "AES", "1234567"))
                .hasMessageContaining("privacy passphrase for AES has 7 characters");
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", null, null, "AES", "passphrase2"))
                .hasMessage("SNMPv3 user \"ro\": privacy protocol AES needs an authentication protocol (authPriv; "
                        + "there is no noAuthPriv)");
        assertThatThrownBy(() -> SnmpCredentials.v3("ro", null, "passphrase1", null, null))
                .hasMessage("SNMPv3 user \"ro\": authentication passphrase given without an authentication protocol");
        assertThatThrownBy(() -> SnmpCredentials.v3("", "SHA", "passphrase1", null, null))
                .hasMessage("SNMPv3 credentials need a user");
        assertThatThrownBy(() -> SnmpCredentials.v3("x".repeat(33), null, null, null, null))
                .hasMessageContaining("is 33 bytes long (need 1..32)");
        assertThatThrownBy(SnmpCredentials::v2c).hasMessage("SNMPv2c credentials need at least one community");
        assertThatThrownBy(() -> SnmpCredentials.v2c("public", ""))
                .hasMessage("SNMP community 2 is 0 bytes long (need 1..255)");
        assertThatThrownBy(() -> SnmpCredentials.v2c(Arrays.asList("public", null)))
                .hasMessage("SNMP community 2 is null");
        assertThatThrownBy(() -> new SnmpCredentials(List.of("public"), "ro", null, null, null, null))
                .hasMessage("SNMP credentials have both communities (SNMPv2c) and user \"ro\" (SNMPv3): give one of "
                        + "them");
        assertThatThrownBy(() -> new SnmpCredentials(List.of("public"), null, AuthProtocol.SHA, "passphrase1", null,
                null)).hasMessage("SNMPv2c credentials take no authentication or privacy settings (those need an "
                        + "SNMPv3 user)");
        assertThatThrownBy(() -> new SnmpCredentials(List.of(), null, null, null, null, null))
                .hasMessage("SNMP credentials need communities (SNMPv2c) or a user (SNMPv3)");
    }

    @Test
    void toStringShowsNoSecret() {
        SnmpCredentials v3 = SnmpCredentials.v3("ro", "SHA", "secret-auth-1", "AES256C", "secret-priv-1");
        assertThat(v3).hasToString("v3 user=ro SHA/AES256C AUTH_PRIV");
        assertThat(SnmpCredentials.v2c("secret-community", "other-secret")).hasToString("v2c (2 communities)");
    }
}
