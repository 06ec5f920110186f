public enum DemoServerPlaceholder {}
