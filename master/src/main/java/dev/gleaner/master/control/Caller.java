package dev.gleaner.master.control;

/**
 * Who asks the master to change a job or the cluster: the holder of the shared secret (one trust
 * domain: anybody may do anything), a client with its own token (its own jobs only), or an operator
 * (anybody's job, workers and tokens).
 *
 * @param kind which of the three
 * @param id the token's id; empty for the shared secret
 */
public record Caller(Kind kind, String id) {
  public enum Kind { SHARED_SECRET, CLIENT, OPERATOR }

  /** The shared secret's holder, and whatever runs inside the master's own process. */
  public static final Caller TRUSTED = new Caller(Kind.SHARED_SECRET, "");

  public static Caller client(String id) {
    return new Caller(Kind.CLIENT, id);
  }

  public static Caller operator(String id) {
    return new Caller(Kind.OPERATOR, id);
  }

  /** What a job it submits records as its owner: "client:NAME", "operator:NAME", or empty. */
  public String owner() {
    return switch (kind) {
      case SHARED_SECRET -> "";
      case CLIENT -> "client:" + id;
      case OPERATOR -> "operator:" + id;
    };
  }

  /** Whether it may act as an operator: drain workers, revoke tokens, change anybody's job. */
  public boolean isOperator() {
    return kind != Kind.CLIENT;
  }

  /**
   * Null if it may {@code verb} job {@code jobId}, owned by {@code owner}; else why not, in one
   * sentence naming the owner and who could.
   */
  public String refusal(String verb, String jobId, String owner) {
    if (isOperator() || owner.equals(owner())) {
      return null;
    }
    if (owner.isEmpty()) {
      return "job " + jobId + " has no owner (submitted with the shared secret, or before jobs had owners); only an"
          + " operator may " + verb + " it (you are client '" + id + "')";
    }
    return "job " + jobId + " belongs to " + ownerText(owner) + "; only " + ownerText(owner)
        + " or an operator may " + verb + " it (you are client '" + id + "')";
  }

  /** "client 'alice'" for "client:alice". */
  public static String ownerText(String owner) {
    int colon = owner.indexOf(':');
    return colon < 0 ? owner : owner.substring(0, colon) + " '" + owner.substring(colon + 1) + "'";
  }

  /** A request refused because the job is another client's: its message names the owner. */
  public static final class NotAllowed extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public NotAllowed(String message) {
      super(message);
    }
  }

  @Override
  public String toString() {
    return kind == Kind.SHARED_SECRET ? "the shared secret's holder" : ownerText(owner());
  }
}
