package dev.gleaner.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Descriptors.FieldDescriptor;
import org.junit.jupiter.api.Test;

class MessagesTest {
  /** The warm-up a daemon does at start goes through every kind of envelope, each read back as written. */
  @Test
  void theWarmUpReadsBackEveryKindOfEnvelope() {
    long kinds = Envelope.getDescriptor().getFields().stream()
        .filter(f -> f.getJavaType() == FieldDescriptor.JavaType.MESSAGE).count();
    assertEquals(Envelope.getDescriptor().getOneofs().get(0).getFieldCount(), kinds, "every body is a message");
    assertEquals(kinds, Messages.warmUp());
  }
}
