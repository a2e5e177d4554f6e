package dev.pybridge.indexer;

/** Wire codes shared with Python (pybridge/facts.py keeps the same order). */
final class Kinds {
    private Kinds() {}

    // Declaration kinds: index into facts.DECL_KINDS.
    static final int CLASS = 0, INTERFACE = 1, ENUM = 2, RECORD = 3, ANNOTATION = 4, METHOD = 5,
            CONSTRUCTOR = 6, FIELD = 7, ENUM_CONSTANT = 8, RECORD_COMPONENT = 9, PARAMETER = 10,
            LOCAL = 11, TYPE_PARAMETER = 12, INITIALIZER = 13;

    // Reference kinds: index into facts.REF_KINDS.
    static final int READ = 0, WRITE = 1, READ_WRITE = 2, INVOCATION = 3, CONSTRUCTION = 4,
            METHOD_REFERENCE = 5, TYPE_USE = 6;

    // Relation kinds: index into facts.RELATION_KINDS.
    static final int EXTENDS = 0, IMPLEMENTS = 1, OVERRIDES = 2;
    /** A generated accessor (Lombok getter or setter) to the field it reads or writes. */
    static final int GENERATED_FROM = 3;

    // Reference flags.
    static final int IN_IMPORT = 1, IN_JAVADOC = 2;
    /** A reference made by generated code (Lombok's): its token is the generating annotation. */
    static final int IN_GENERATED = 16;

    /** Declaration modifier bit (above JDT's Modifier flags): a member that an annotation generated. */
    static final int GENERATED = 1 << 28;

    // Problem kinds: index into facts.PROBLEM_KINDS.
    static final int SYNTAX = 0, UNRESOLVED_TYPE = 1, UNRESOLVED_METHOD = 2, UNRESOLVED_FIELD = 3,
            UNRESOLVED_VARIABLE = 4, UNRESOLVED_IMPORT = 5, UNRESOLVED_NAME = 6, OTHER_ERROR = 7;
}
