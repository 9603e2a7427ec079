package io.vecflow.collector.enrich;

import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;

/** Network attributes by address, as the row path asks for them (an immutable snapshot; allocation-free). */
public interface AddressLookup {
    /** Knows nothing. */
    AddressLookup NONE = new AddressLookup() {
        @Override
        public NetworkInfo lookup(byte[] address16, int off) {
            return NetworkInfo.EMPTY;
        }

        @Override
        public Label asName(long asn) {
            return Label.EMPTY;
        }
    };

    /**
     * @param address16 a 16-byte address (IPv4 mapped)
     * @param off its offset
     * @return the attributes of the longest matching prefix (never null)
     */
    NetworkInfo lookup(byte[] address16, int off);

    /**
     * @param asn an AS number
     * @return its name, {@link Label#EMPTY} when unknown
     */
    Label asName(long asn);
}
