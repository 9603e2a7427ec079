package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.TestSupport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Plain-HTTP ClickHouse queries for tests (an independent reader, not the sink's client). */
public final class ClickHouseSinkTestSupport {
    private ClickHouseSinkTestSupport() {}

    public static String query(String sql) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(TestSupport.clickhouseUrl() + "/")).POST(HttpRequest.BodyPublishers.ofString(sql)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("ClickHouse " + r.statusCode() + " for " + sql + ": " + r.body());
        }
        return r.body();
    }
}
