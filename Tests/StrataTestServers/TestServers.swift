/// Real servers the tests talk to, started on loopback and stopped afterwards.
public enum TestServers {}
