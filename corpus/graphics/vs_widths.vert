#version 450
layout(location = 0) in vec4 a0;
layout(location = 1) in vec4 a1;
layout(location = 5) out vec4 v5;
layout(location = 31) out vec4 v31;
void main() { gl_Position = a0; v5 = a1; v31 = a1; }
