package com.acme.gradle.service;

import com.acme.gradle.core.Message;
import lombok.Builder;
import lombok.Getter;

/** A greeting; Lombok writes its getters and builder. */
@Getter
@Builder
public class Greeting {
    private final String who;
    private final Message message;
}
