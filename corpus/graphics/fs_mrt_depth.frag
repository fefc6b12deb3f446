#version 450
layout(location = 0) noperspective in vec4 v0;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main() { o0 = v0; o1.xy = vec2(v0.x * v0.y, v0.z + v0.w); gl_FragDepth = v0.z * 0.75; }
