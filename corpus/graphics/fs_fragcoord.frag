#version 450
layout(location = 0) noperspective in vec4 v0;
layout(location = 0) out vec4 o0;
void main() { o0 = vec4(gl_FragCoord.x * 0.03125, gl_FragCoord.y * 0.03125, gl_FragCoord.z + v0.x, 1.0); }
