#version 450
layout(location = 0) noperspective in vec4 v0;
layout(location = 0) out vec4 o0;
void main() { if (v0.x > 0.25 && !(v0.y > 0.25)) discard; o0 = v0; }
