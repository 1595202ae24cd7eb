import PostgresNIO
import WOPIStorePostgres

extension PostgresDatabaseURL {
    /// A pool's settings for this test database (the test server takes no TLS).
    var poolConfiguration: PostgresClient.Configuration {
        PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// One connection's settings for this test database.
    var connectionConfiguration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }
}
